import { describe, expect, it } from "vitest";
import type { SequencedEvent } from "../router/context.ts";
import type { SessionEvent } from "../router/types.ts";
import { MemoryEventBus } from "./event-bus.ts";
import { coalesceDeltas, EventFeed, streamEvents } from "./event-stream.ts";

const notice = (code: string): SessionEvent => ({ type: "notice", level: "info", code, message: code });
const codes = (items: SequencedEvent[]) => items.map((item) => (item.event.type === "notice" ? item.event.code : item.event.type));

describe("streamEvents", () => {
  it("replays after the cursor, then streams live, each seq once, and unsubscribes when aborted", async () => {
    const bus = new MemoryEventBus();
    bus.publish("s", notice("1"));
    bus.publish("s", notice("2"));
    const controller = new AbortController();
    const stream = streamEvents({ bus, sessionId: "s", afterSeq: 1, signal: controller.signal, backfill: async () => [] });
    const received: SequencedEvent[] = [];
    const first = await stream.next();
    received.push(first.value as SequencedEvent);
    expect(bus.listenerCount("s")).toBe(1);
    // Published while the consumer is between reads: still delivered exactly once.
    bus.publish("s", notice("3"));
    bus.publish("s", notice("4"));
    for (let index = 0; index < 2; index++) received.push((await stream.next()).value as SequencedEvent);
    const pending = stream.next();
    controller.abort();
    expect(await pending).toEqual({ done: true, value: undefined });
    expect(received.map((item) => item.seq)).toEqual([2, 3, 4]);
    expect(bus.listenerCount("s")).toBe(0);
  });

  it("sends the backfill when the subscriber is behind the ring, then continues from the oldest retained event", async () => {
    const bus = new MemoryEventBus({ ringSize: 2 });
    for (let index = 1; index <= 4; index++) bus.publish("s", notice(String(index)));
    const controller = new AbortController();
    const received: SequencedEvent[] = [];
    const backfill = async (): Promise<SessionEvent[]> => [notice("history")];
    for await (const item of streamEvents({ bus, sessionId: "s", afterSeq: 1, signal: controller.signal, backfill })) {
      received.push(item);
      if (item.seq === 4) controller.abort();
    }
    expect(received[0]).toEqual({ seq: 2, event: { type: "resync" } });
    expect(codes(received.slice(1))).toEqual(["history", "3", "4"]);
    expect(received[1]!.seq).toBe(2);
    expect(bus.listenerCount()).toBe(0);
  });

  it("ends quietly when the signal was aborted before it started", async () => {
    const bus = new MemoryEventBus();
    const controller = new AbortController();
    controller.abort();
    const items: SequencedEvent[] = [];
    for await (const item of streamEvents({ bus, sessionId: "s", afterSeq: 0, signal: controller.signal, backfill: async () => [] })) items.push(item);
    expect(items).toEqual([]);
    expect(bus.listenerCount()).toBe(0);
  });
});

describe("EventFeed", () => {
  it("takes everything after its cursor at once, deltas joined, and moves the cursor on", async () => {
    const bus = new MemoryEventBus();
    const feed = new EventFeed({ bus, sessionId: "s", afterSeq: 1, backfill: async () => [] });
    let published = 0;
    const unsubscribe = feed.listen(() => published++);
    bus.publish("s", notice("1"));
    bus.publish("s", { type: "text-delta", index: 0, text: "a" });
    bus.publish("s", { type: "text-delta", index: 0, text: "b" });
    bus.publish("s", notice("4"));
    expect(published).toBe(4);
    expect(await feed.take()).toEqual({
      events: [
        { seq: 3, event: { type: "text-delta", index: 0, text: "ab" } },
        { seq: 4, event: notice("4") },
      ],
      more: false,
    });
    expect(await feed.take()).toEqual({ events: [], more: false });
    unsubscribe();
    expect(bus.listenerCount("s")).toBe(0);
  });

  it("takes what the bus holds in memory at once, without a promise; a resync waits for its backfill", async () => {
    const bus = new MemoryEventBus({ ringSize: 2 });
    const feed = new EventFeed({ bus, sessionId: "s", afterSeq: 0, backfill: async () => [notice("history")] });
    bus.publish("s", notice("1"));
    const live = feed.take();
    expect(live).not.toBeInstanceOf(Promise);
    expect(codes((live as Awaited<typeof live>).events)).toEqual(["1"]);
    for (let index = 2; index <= 5; index++) bus.publish("s", notice(String(index)));
    const behind = feed.take();
    expect(behind).toBeInstanceOf(Promise);
    expect(codes((await behind).events)).toEqual(["resync", "history"]);
  });

  it("answers a cursor the bus no longer holds with a resync and the backfill, then the retained events", async () => {
    const bus = new MemoryEventBus({ ringSize: 2 });
    for (let index = 1; index <= 4; index++) bus.publish("s", notice(String(index)));
    const feed = new EventFeed({ bus, sessionId: "s", afterSeq: 1, backfill: async () => [notice("history")] });
    expect(await feed.take()).toEqual({
      events: [
        { seq: 2, event: { type: "resync" } },
        { seq: 2, event: notice("history") },
      ],
      more: true,
    });
    expect(codes((await feed.take()).events)).toEqual(["3", "4"]);
  });
});

describe("coalesceDeltas", () => {
  const text = (seq: number, value: string, index = 0): SequencedEvent => ({ seq, event: { type: "text-delta", index, text: value } });

  it("joins adjacent deltas of one block under the last seq, and nothing else", () => {
    const items: SequencedEvent[] = [
      text(1, "a"),
      text(2, "b"),
      text(3, "c", 1),
      { seq: 4, event: notice("between") },
      text(5, "d"),
      text(6, "e"),
      { seq: 7, event: { type: "tool-input-delta", index: 0, partialJson: '{"a"' } },
      { seq: 8, event: { type: "tool-input-delta", index: 0, partialJson: ":1}" } },
    ];
    expect(coalesceDeltas(items)).toEqual([
      text(2, "ab"),
      text(3, "c", 1),
      { seq: 4, event: notice("between") },
      text(6, "de"),
      { seq: 8, event: { type: "tool-input-delta", index: 0, partialJson: '{"a":1}' } },
    ]);
    expect(coalesceDeltas([text(9, "x")])).toEqual([text(9, "x")]);
  });
});
