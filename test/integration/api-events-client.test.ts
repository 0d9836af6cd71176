import { createTRPCClient, httpSubscriptionLink } from "@trpc/client";
import type { AppRouter, SessionEvent } from "@cairn/api";
import { EventSource } from "eventsource";
import { describe, expect, it } from "vitest";
import { assertLossless, CuttingProxy, eventually, publishedEvents, type Received, startApiFixture, streamedText } from "./api-harness.ts";

const LONG_TEXT = "Pack my box with five dozen liquor jugs. ".repeat(20);

/** The raw text of one session.events response until it carries `lastSeq`, without ping frames; and its headers. */
async function rawStream(url: string, token: string, lastSeq: number): Promise<{ text: string; headers: Headers }> {
  const controller = new AbortController();
  const response = await fetch(url, { headers: { authorization: `Bearer ${token}`, accept: "text/event-stream" }, signal: controller.signal });
  const decoder = new TextDecoder();
  let text = "";
  try {
    for await (const chunk of response.body!) {
      text += decoder.decode(chunk as Uint8Array, { stream: true });
      if (text.includes(`\nid: ${lastSeq}\n\n\n`)) break;
    }
  } finally {
    controller.abort();
  }
  return { text: text.replaceAll("event: ping\ndata: \n\n\n", ""), headers: response.headers };
}

describe("session.events as the tRPC client reads it", () => {
  it("writes what tRPC's own subscription handler writes, byte for byte, with the same headers", async () => {
    await using fixture = await startApiFixture({ scenario: { turns: [{ content: [{ type: "text", text: LONG_TEXT }] }] } });
    const { sessionId } = await fixture.client.session.create.mutate();
    await fixture.client.session.send.mutate({ sessionId, prompt: "go" });
    await eventually(async () => expect((await fixture.client.session.get.query({ sessionId })).running).toBe(false), 20_000);
    const lastSeq = fixture.server.hub.bus.lastSeq(sessionId);
    const url = `${fixture.server.url}/api/trpc/session.events?input=${encodeURIComponent(JSON.stringify({ sessionId, lastEventId: "2" }))}`;
    const direct = await rawStream(url, fixture.server.token, lastSeq);
    // A query parameter the direct route does not know sends the request to tRPC's handler, which ignores it.
    const viaTrpc = await rawStream(`${url}&via=trpc`, fixture.server.token, lastSeq);
    expect(direct.text.startsWith("event: connected\n")).toBe(true);
    expect(direct.text).toContain(`data: {"type":"result"`);
    expect(direct.text).toBe(viaTrpc.text);
    for (const name of ["content-type", "cache-control", "vary", "x-accel-buffering", "referrer-policy", "x-content-type-options"])
      expect([name, direct.headers.get(name)]).toEqual([name, viaTrpc.headers.get(name)]);
  });

  it("streams to httpSubscriptionLink with tracked ids, and a cut connection resumes from lastEventId with no gap or duplicate", async () => {
    await using fixture = await startApiFixture({ scenario: { turns: [{ content: [{ type: "text", text: LONG_TEXT }] }] }, chunkDelayMs: 100 });
    const proxy = await CuttingProxy.start(fixture.server.port);
    const authorization = `Bearer ${fixture.server.token}`;
    const client = createTRPCClient<AppRouter>({
      links: [
        httpSubscriptionLink({
          url: `${proxy.url}/api/trpc`,
          EventSource,
          eventSourceOptions: { fetch: (input, init) => fetch(input, { ...init, headers: { ...init?.headers, authorization } }) },
        }),
      ],
    });
    const received: Received[] = [];
    const errors: unknown[] = [];
    try {
      const { sessionId } = await fixture.client.session.create.mutate();
      const subscription = client.session.events.subscribe(
        { sessionId },
        { onData: ({ id, data }) => void received.push({ seq: Number(id), event: data as SessionEvent }), onError: (error) => void errors.push(error) },
      );
      try {
        await eventually(() => expect(fixture.server.hub.bus.listenerCount(sessionId)).toBe(1));
        await fixture.client.session.send.mutate({ sessionId, prompt: "tell me a story" });
        // Cut once while the text streams, and again once the reconnected stream (EventSource retries after 3 s) delivered more.
        await eventually(() => expect(received.filter((item) => item.event.type === "text-delta").length).toBeGreaterThanOrEqual(5));
        const beforeFirstCut = received.length;
        expect(proxy.cut()).toBeGreaterThan(0);
        await eventually(() => expect(received.length).toBeGreaterThan(beforeFirstCut));
        expect(proxy.cut()).toBeGreaterThan(0);
        await eventually(async () => expect((await fixture.client.session.get.query({ sessionId })).running).toBe(false), 20_000);
        const lastSeq = fixture.server.hub.bus.lastSeq(sessionId);
        await eventually(() => expect(received.at(-1)?.seq).toBe(lastSeq), 20_000);
      } finally {
        subscription.unsubscribe();
      }
      expect(errors).toEqual([]);
      assertLossless(received, publishedEvents(fixture.server, sessionId));
      expect(streamedText(received.map((item) => item.event))).toBe(LONG_TEXT);
      await eventually(() => expect(fixture.server.hub.bus.listenerCount(sessionId)).toBe(0));
    } finally {
      await proxy.close();
    }
  });
});
