import type { BrowserContext, Page } from "@playwright/test";

/** One event of `session.events` as the page's EventSource received it: its SSE id (the stream entry id) and kind. */
export type TappedEvent = { id: number; type: string; text: string | undefined };

/** What a page's `session.events` subscriptions asked for and received, read from Chromium's network layer. */
export type SessionEventsTap = {
  /** Every event received, in arrival order, over all of the page's `session.events` streams. */
  events(): TappedEvent[];
  /** The `lastEventId` each `session.events` request resumed after (null: from the start or a snapshot). */
  resumedAfter(): Array<string | null>;
};

/**
 * Reads the ids of the `session.events` SSE messages a page receives (tRPC `tracked()` ids, which are the
 * Redis stream entry ids in distributed mode) through the Chrome DevTools protocol, so a test can compare
 * what two tabs on two nodes were sent without the page exposing anything. Attach before the page loads.
 */
export async function tapSessionEvents(context: BrowserContext, page: Page): Promise<SessionEventsTap> {
  const cdp = await context.newCDPSession(page);
  const streams = new Set<string>();
  const resumed: Array<string | null> = [];
  const received: TappedEvent[] = [];
  cdp.on("Network.requestWillBeSent", (event) => {
    const url = new URL(event.request.url);
    if (!url.pathname.endsWith("/api/trpc/session.events")) return;
    streams.add(event.requestId);
    const input = JSON.parse(url.searchParams.get("input") ?? "{}") as { lastEventId?: string | null };
    resumed.push(input.lastEventId ?? null);
  });
  cdp.on("Network.eventSourceMessageReceived", (event) => {
    // Pings, `connected` and errors have their own event names; the session's events are plain messages with an id.
    if (!streams.has(event.requestId) || event.eventName !== "message" || event.eventId === "") return;
    const data = JSON.parse(event.data) as { type?: unknown; text?: unknown };
    received.push({ id: Number(event.eventId), type: String(data.type), text: typeof data.text === "string" ? data.text : undefined });
  });
  await cdp.send("Network.enable");
  return { events: () => [...received], resumedAfter: () => [...resumed] };
}

/** True when each id is greater than the one before: no event twice, none out of order. */
export function strictlyIncreasing(ids: readonly number[]): boolean {
  return ids.every((id, index) => index === 0 || id > ids[index - 1]!);
}
