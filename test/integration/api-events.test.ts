import { describe, expect, it, vi } from "vitest";
import { assertContiguous, CuttingProxy, EventsSubscriber, startApiFixture, streamedText } from "./api-harness.ts";

const LONG_TEXT = "The quick brown fox jumps over the lazy dog. ".repeat(20);

describe("session.events over HTTP SSE", () => {
  it("resumes after a cut connection with no gap and no duplicate", async () => {
    await using fixture = await startApiFixture({ scenario: { turns: [{ content: [{ type: "text", text: LONG_TEXT }] }] }, chunkDelayMs: 5 });
    const proxy = await CuttingProxy.start(fixture.server.port);
    try {
      const { sessionId } = await fixture.client.session.create.mutate();
      const subscriber = new EventsSubscriber(proxy.url, fixture.server.token, sessionId);
      await vi.waitFor(() => expect(fixture.server.hub.bus.listenerCount(sessionId)).toBe(1));
      await fixture.client.session.send.mutate({ sessionId, prompt: "tell me a story" });

      // Cut twice while the text streams.
      for (const threshold of [10, 30]) {
        await vi.waitFor(() => expect(subscriber.events().filter((event) => event.type === "text-delta").length).toBeGreaterThanOrEqual(threshold));
        expect(proxy.cut()).toBeGreaterThan(0);
      }
      await vi.waitFor(async () => expect((await fixture.client.session.get.query({ sessionId })).running).toBe(false), { timeout: 20_000 });
      const lastSeq = fixture.server.hub.bus.lastSeq(sessionId);
      await vi.waitFor(() => expect(subscriber.received.at(-1)?.seq).toBe(lastSeq));
      await subscriber.stop();

      expect(subscriber.connections).toBeGreaterThanOrEqual(3);
      expect(subscriber.errors).toEqual([]);
      assertContiguous(subscriber.received);
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
    await vi.waitFor(() => expect(fixture.server.hub.bus.listenerCount(sessionId)).toBe(2));
    await fixture.client.session.send.mutate({ sessionId, prompt: "hi" });
    await vi.waitFor(() => {
      for (const subscriber of [first, second]) expect(subscriber.events().some((event) => event.type === "session-state" && !event.running && subscriber.events().some((other) => other.type === "result"))).toBe(true);
    });
    const lastSeq = fixture.server.hub.bus.lastSeq(sessionId);
    await vi.waitFor(() => expect(first.received.at(-1)?.seq).toBe(lastSeq));
    await vi.waitFor(() => expect(second.received.at(-1)?.seq).toBe(lastSeq));
    await Promise.all([first.stop(), second.stop()]);
    expect(second.received).toEqual(first.received);
    assertContiguous(first.received);
    expect(streamedText(first.events())).toBe("Hello from the simulator.");
  });

  it("keeps a session running after its subscriber leaves and replays on reconnect; listeners are released", async () => {
    await using fixture = await startApiFixture({ scenario: { turns: [{ content: [{ type: "text", text: LONG_TEXT }] }] }, chunkDelayMs: 5 });
    const { sessionId } = await fixture.client.session.create.mutate();
    const early = new EventsSubscriber(fixture.server.url, fixture.server.token, sessionId);
    await vi.waitFor(() => expect(fixture.server.hub.bus.listenerCount(sessionId)).toBe(1));
    await fixture.client.session.send.mutate({ sessionId, prompt: "go" });
    await vi.waitFor(() => expect(early.events().filter((event) => event.type === "text-delta").length).toBeGreaterThan(3));
    await early.stop();
    await vi.waitFor(() => expect(fixture.server.hub.bus.listenerCount()).toBe(0));
    const seenBefore = early.received.at(-1)!.seq;

    // Nobody watches; the run goes on to the end.
    await vi.waitFor(async () => expect((await fixture.client.session.get.query({ sessionId })).running).toBe(false), { timeout: 20_000 });
    const snapshot = await fixture.client.session.get.query({ sessionId });
    expect(snapshot.messages.map((message) => message.type)).toEqual(["user", "assistant"]);
    expect(snapshot.lastSeq).toBeGreaterThan(seenBefore);

    const late = new EventsSubscriber(fixture.server.url, fixture.server.token, sessionId, { lastEventId: String(seenBefore) });
    await vi.waitFor(() => expect(late.received.at(-1)?.seq).toBe(snapshot.lastSeq));
    await late.stop();
    assertContiguous(late.received, seenBefore + 1);
    expect(streamedText([...early.events(), ...late.events()])).toBe(LONG_TEXT);
    await vi.waitFor(() => expect(fixture.server.hub.bus.listenerCount()).toBe(0));
  });
});
