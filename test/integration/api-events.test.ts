import { describe, expect, it } from "vitest";
import { assertLossless, CuttingProxy, publishedEvents, EventsSubscriber, startApiFixture, streamedText, eventually } from "./api-harness.ts";

const LONG_TEXT = "The quick brown fox jumps over the lazy dog. ".repeat(20);

describe("session.events over HTTP SSE", () => {
  it("resumes after a cut connection with no gap and no duplicate", async () => {
    await using fixture = await startApiFixture({ scenario: { turns: [{ content: [{ type: "text", text: LONG_TEXT }] }] }, chunkDelayMs: 5 });
    const proxy = await CuttingProxy.start(fixture.server.port);
    try {
      const { sessionId } = await fixture.client.session.create.mutate();
      const subscriber = new EventsSubscriber(proxy.url, fixture.server.token, sessionId);
      await eventually(() => expect(fixture.server.hub.bus.listenerCount(sessionId)).toBe(1));
      await fixture.client.session.send.mutate({ sessionId, prompt: "tell me a story" });

      // Cut twice while the text streams.
      for (const threshold of [10, 30]) {
        await eventually(() => expect(subscriber.events().filter((event) => event.type === "text-delta").length).toBeGreaterThanOrEqual(threshold));
        expect(proxy.cut()).toBeGreaterThan(0);
      }
      await eventually(async () => expect((await fixture.client.session.get.query({ sessionId })).running).toBe(false), 20_000);
      const lastSeq = fixture.server.hub.bus.lastSeq(sessionId);
      await eventually(() => expect(subscriber.received.at(-1)?.seq).toBe(lastSeq));
      await subscriber.stop();

      expect(subscriber.connections).toBeGreaterThanOrEqual(3);
      expect(subscriber.errors).toEqual([]);
      assertLossless(subscriber.received, publishedEvents(fixture.server, sessionId));
      expect(subscriber.events().filter((event) => event.type === "result")).toHaveLength(1);
      expect(streamedText(subscriber.events())).toBe(LONG_TEXT);
    } finally {
      await proxy.close();
    }
  });

  it("gives two subscribers the same events", async () => {
    await using fixture = await startApiFixture({ scenario: { turns: [{ content: [{ type: "text", text: "Hello from the simulator." }] }] } });
    const { sessionId } = await fixture.client.session.create.mutate();
    const first = new EventsSubscriber(fixture.server.url, fixture.server.token, sessionId);
    const second = new EventsSubscriber(fixture.server.url, fixture.server.token, sessionId);
    await eventually(() => expect(fixture.server.hub.bus.listenerCount(sessionId)).toBe(2));
    await fixture.client.session.send.mutate({ sessionId, prompt: "hi" });
    await eventually(() => {
      for (const subscriber of [first, second])
        expect(
          subscriber.events().some((event) => event.type === "session-state" && !event.running && subscriber.events().some((other) => other.type === "result")),
        ).toBe(true);
    });
    const lastSeq = fixture.server.hub.bus.lastSeq(sessionId);
    await eventually(() => expect(first.received.at(-1)?.seq).toBe(lastSeq));
    await eventually(() => expect(second.received.at(-1)?.seq).toBe(lastSeq));
    await Promise.all([first.stop(), second.stop()]);
    const published = publishedEvents(fixture.server, sessionId);
    assertLossless(first.received, published);
    assertLossless(second.received, published);
    const nonDeltas = (received: typeof first.received) => received.filter((item) => item.event.type !== "text-delta");
    expect(nonDeltas(second.received)).toEqual(nonDeltas(first.received));
    expect(streamedText(first.events())).toBe("Hello from the simulator.");
  });

  it("keeps a session running after its subscriber leaves and replays on reconnect; listeners are released", async () => {
    await using fixture = await startApiFixture({ scenario: { turns: [{ content: [{ type: "text", text: LONG_TEXT }] }] }, chunkDelayMs: 5 });
    const { sessionId } = await fixture.client.session.create.mutate();
    const early = new EventsSubscriber(fixture.server.url, fixture.server.token, sessionId);
    await eventually(() => expect(fixture.server.hub.bus.listenerCount(sessionId)).toBe(1));
    await fixture.client.session.send.mutate({ sessionId, prompt: "go" });
    await eventually(() => expect(early.events().filter((event) => event.type === "text-delta").length).toBeGreaterThan(3));
    await early.stop();
    await eventually(() => expect(fixture.server.hub.bus.listenerCount()).toBe(0));
    const seenBefore = early.received.at(-1)!.seq;

    // Nobody watches; the run goes on to the end.
    await eventually(async () => expect((await fixture.client.session.get.query({ sessionId })).running).toBe(false), 20_000);
    const snapshot = await fixture.client.session.get.query({ sessionId });
    expect(snapshot.messages.map((message) => message.type)).toEqual(["user", "assistant"]);
    expect(snapshot.lastSeq).toBeGreaterThan(seenBefore);

    const late = new EventsSubscriber(fixture.server.url, fixture.server.token, sessionId, { lastEventId: String(seenBefore) });
    await eventually(() => expect(late.received.at(-1)?.seq).toBe(snapshot.lastSeq));
    await late.stop();
    assertLossless(late.received, publishedEvents(fixture.server, sessionId, seenBefore), seenBefore);
    expect(streamedText([...early.events(), ...late.events()])).toBe(LONG_TEXT);
    await eventually(() => expect(fixture.server.hub.bus.listenerCount()).toBe(0));
  });

  it("lets a tab that opens mid-stream pick up the text streamed so far", async () => {
    await using fixture = await startApiFixture({ scenario: { turns: [{ content: [{ type: "text", text: LONG_TEXT }] }] }, chunkDelayMs: 5 });
    const { sessionId } = await fixture.client.session.create.mutate();
    const first = new EventsSubscriber(fixture.server.url, fixture.server.token, sessionId);
    try {
      await fixture.client.session.send.mutate({ sessionId, prompt: "go" });
      await eventually(() => expect(first.events().filter((event) => event.type === "text-delta").length).toBeGreaterThan(5));
      const snapshot = await fixture.client.session.get.query({ sessionId });
      expect(snapshot.streamingFromSeq).not.toBeNull();
      expect(snapshot.streamingFromSeq!).toBeLessThan(snapshot.lastSeq);
      const late = new EventsSubscriber(fixture.server.url, fixture.server.token, sessionId, { lastEventId: String(snapshot.streamingFromSeq) });
      await idleAndCaughtUp(fixture, sessionId, late);
      await late.stop();
      expect(late.events()[0]?.type).toBe("message-start");
      expect(streamedText(late.events())).toBe(LONG_TEXT);
      expect((await fixture.client.session.get.query({ sessionId })).streamingFromSeq).toBeNull();
    } finally {
      await first.stop();
    }
  });

  it("sends the conversation instead of the events a subscriber missed beyond the replay window", async () => {
    await using fixture = await startApiFixture({ scenario: { turns: [{ content: [{ type: "text", text: LONG_TEXT }] }] }, ringSize: 8 });
    const { sessionId } = await fixture.client.session.create.mutate();
    await fixture.client.session.send.mutate({ sessionId, prompt: "go" });
    await eventually(async () => expect((await fixture.client.session.get.query({ sessionId })).running).toBe(false), 20_000);
    const snapshot = await fixture.client.session.get.query({ sessionId });
    expect(snapshot.lastSeq).toBeGreaterThan(8);

    const late = new EventsSubscriber(fixture.server.url, fixture.server.token, sessionId, { lastEventId: "1" });
    await eventually(() => expect(late.received.at(-1)?.seq).toBe(snapshot.lastSeq));
    await late.stop();
    const messages = late.events().flatMap((event) => (event.type === "message" ? [event.message.uuid] : []));
    expect(new Set(messages)).toEqual(new Set(snapshot.messages.map((message) => message.uuid)));
    expect(late.events().some((event) => event.type === "session-state" && !event.running)).toBe(true);
    // After the backfill (sent under the seq just before the oldest retained event), the retained events follow.
    const oldest = snapshot.lastSeq - 7;
    assertLossless(
      late.received.filter((item) => item.seq >= oldest),
      publishedEvents(fixture.server, sessionId, oldest - 1),
      oldest - 1,
    );
  });
});

async function idleAndCaughtUp(fixture: Awaited<ReturnType<typeof startApiFixture>>, sessionId: string, subscriber: EventsSubscriber): Promise<void> {
  await eventually(async () => expect((await fixture.client.session.get.query({ sessionId })).running).toBe(false), 20_000);
  const lastSeq = fixture.server.hub.bus.lastSeq(sessionId);
  await eventually(() => expect(subscriber.received.at(-1)?.seq).toBe(lastSeq));
}
