import { Notifier } from "@cairn/core";
import type { SequencedEvent } from "../router/context.ts";
import type { SessionEvent } from "../router/types.ts";
import type { EventBus } from "./event-bus.ts";

export type StreamEventsOptions = {
  bus: EventBus;
  sessionId: string;
  /** The seq of the last event the subscriber has; 0 for none. */
  afterSeq: number;
  signal: AbortSignal;
  /**
   * What to send when the subscriber is further behind than the bus retains (or ahead of it, after a
   * server restart): the conversation so far as `message` events and the current `session-state`.
   * Clients key messages by uuid, so one they already hold is replaced, not duplicated.
   */
  backfill: () => Promise<SessionEvent[]>;
};

/**
 * One subscriber's view of a session: it listens first, then reads the retained events after its
 * cursor, then keeps reading as listeners fire. Reading by seq from the bus (not from a private
 * queue) makes duplicates impossible and lets a slow subscriber fall behind without buffering:
 * at worst it gets a backfill. Returns when `signal` aborts; always unsubscribes.
 */
export async function* streamEvents(options: StreamEventsOptions): AsyncGenerator<SequencedEvent> {
  const { bus, sessionId, signal } = options;
  // Notified from the start: the retained events after the cursor are read before the first wait.
  const wakeUps = new Notifier({ notified: true });
  /** Set when the bus says what this subscriber got from `resyncAfter` on is void (a stale owner's events): it starts again there. */
  let resyncAfter: number | undefined;
  const unsubscribe = bus.subscribe(sessionId, (item) => {
    if (item.event.type === "resync") resyncAfter = Math.min(resyncAfter ?? item.seq, item.seq);
    wakeUps.notify();
  });
  let cursor = options.afterSeq;
  try {
    while ((await wakeUps.wait(signal)) && !signal.aborted) {
      const voided = resyncAfter !== undefined && resyncAfter < cursor ? resyncAfter : undefined;
      resyncAfter = undefined;
      const replay = voided === undefined ? await bus.replay(sessionId, cursor) : { kind: "gap" as const, events: [] };
      if (signal.aborted) return;
      if (replay.kind === "gap") {
        const base = voided ?? (replay.events[0]?.seq ?? bus.lastSeq(sessionId) + 1) - 1;
        const events = await options.backfill();
        // Said first, so the client knows to replace what it holds rather than add to it.
        yield { seq: base, event: { type: "resync" } };
        for (const event of events) {
          if (signal.aborted) return;
          yield { seq: base, event };
        }
        cursor = base;
        wakeUps.notify();
        continue;
      }
      for (const item of coalesceDeltas(replay.events.filter((event) => event.seq > cursor))) {
        cursor = item.seq;
        yield item;
        if (signal.aborted) return;
      }
    }
  } finally {
    unsubscribe();
  }
}

type Delta = Extract<SessionEvent, { type: "text-delta" | "thinking-delta" | "tool-input-delta" }>;

function isDelta(event: SessionEvent): event is Delta {
  return event.type === "text-delta" || event.type === "thinking-delta" || event.type === "tool-input-delta";
}

function joined(left: Delta, right: Delta): Delta | undefined {
  if (left.type !== right.type || left.index !== right.index) return undefined;
  switch (left.type) {
    case "text-delta":
      return { ...left, text: left.text + (right as typeof left).text };
    case "thinking-delta":
      return { ...left, thinking: left.thinking + (right as typeof left).thinking };
    case "tool-input-delta":
      return { ...left, partialJson: left.partialJson + (right as typeof left).partialJson };
  }
}

/**
 * A subscriber that fell behind gets adjacent deltas of one block as one event, carrying the seq of
 * the last: every character arrives once and a resume from that seq continues right after it. Each
 * SSE message costs the server far more than its bytes, so this is how a backlog clears. A subscriber
 * that keeps up sees every delta as it was published.
 */
export function coalesceDeltas(items: readonly SequencedEvent[]): SequencedEvent[] {
  if (items.length < 2) return [...items];
  const out: SequencedEvent[] = [];
  for (const item of items) {
    const last = out.at(-1);
    const merged = last && isDelta(last.event) && isDelta(item.event) ? joined(last.event, item.event) : undefined;
    if (last && merged) out[out.length - 1] = { seq: item.seq, event: merged };
    else out.push(item);
  }
  return out;
}
