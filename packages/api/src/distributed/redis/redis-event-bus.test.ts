import { describe, expect, it, vi } from "vitest";
import type { SessionEvent } from "../../router/types.ts";
import { followBus, useRedisNodes } from "./redis-bus-testing.ts";
import type { RedisEventBus } from "./redis-event-bus.ts";

const notice = (index: number): SessionEvent => ({ type: "notice", level: "info", code: "step", message: `event ${index}` });
const RESYNC: SessionEvent = { type: "notice", level: "info", code: "resync", message: "snapshot" };
const follow = (bus: RedisEventBus, sessionId: string, afterSeq: number) => followBus(bus, sessionId, afterSeq, [RESYNC]);

describe("Redis Streams event bus (private redis-server)", () => {
  const redis = useRedisNodes();
  const node = (maxLen?: number) => redis.node(maxLen ? { maxLen } : {});

  it("appends each event with XADD as <seq>-0 and trims with an approximate MAXLEN", async () => {
    const owner = node(100);
    await owner.prepare("trimmed");
    for (let index = 1; index <= 1_000; index++) expect(owner.publish("trimmed", notice(index))).toBe(index);
    await owner.flush();
    const inspect = redis.inspector();
    const [first] = await inspect.xrange("cairn:events:trimmed", "-", "+", "COUNT", 1);
    const [last] = await inspect.xrevrange("cairn:events:trimmed", "+", "-", "COUNT", 1);
    expect(last?.[0]).toBe("1000-0");
    expect(first?.[0]).not.toBe("1-0");
    const length = await inspect.xlen("cairn:events:trimmed");
    expect(length).toBeGreaterThanOrEqual(100);
    expect(length).toBeLessThan(1_000);
  });

  it("a tab following node B, then reconnecting to node A mid-run, gets every id exactly once", async () => {
    const nodeA = node();
    const nodeB = node();
    await nodeA.prepare("live");
    const onB = follow(nodeB, "live", 0);
    const total = 600;
    let published = 0;
    const publishSome = async (count: number) => {
      for (let index = 0; index < count; index++) {
        published++;
        nodeA.publish("live", notice(published));
        if (published % 50 === 0) await new Promise((resolve) => setTimeout(resolve, 5));
      }
    };
    await publishSome(250);
    await vi.waitFor(() => expect(onB.received.length).toBeGreaterThanOrEqual(100), { timeout: 10_000 });
    await onB.stop();
    const resumeFrom = onB.lastSeq();
    // The browser's EventSource comes back with Last-Event-ID = the last id it saw, this time on node A.
    const onA = follow(nodeA, "live", resumeFrom);
    await publishSome(total - published);
    await vi.waitFor(() => expect(onA.lastSeq()).toBe(total), { timeout: 10_000 });
    await onA.stop();
    const ids = [...onB.received, ...onA.received].map((item) => item.seq);
    expect(ids).toEqual(Array.from({ length: total }, (_, index) => index + 1));
    expect([...onB.received, ...onA.received].map((item) => item.event)).toEqual(Array.from({ length: total }, (_, index) => notice(index + 1)));
  });

  it("a tab on node B reconnecting to a third node that never saw the session reads the gap from the stream", async () => {
    const owner = node();
    const other = node();
    await owner.prepare("cold");
    for (let index = 1; index <= 300; index++) owner.publish("cold", notice(index));
    await owner.flush();
    const tab = follow(other, "cold", 120);
    await vi.waitFor(() => expect(tab.lastSeq()).toBe(300), { timeout: 10_000 });
    for (let index = 301; index <= 320; index++) owner.publish("cold", notice(index));
    await vi.waitFor(() => expect(tab.lastSeq()).toBe(320), { timeout: 10_000 });
    await tab.stop();
    expect(tab.received.map((item) => item.seq)).toEqual(Array.from({ length: 200 }, (_, index) => index + 121));
  });

  it("a cursor the stream has already trimmed gets a resync, then the events that remain, never a silent gap", async () => {
    const owner = node(50);
    await owner.prepare("gone");
    for (let index = 1; index <= 2_000; index++) owner.publish("gone", notice(index));
    await owner.flush();
    const reader = node();
    const tab = follow(reader, "gone", 5);
    await vi.waitFor(() => expect(tab.lastSeq()).toBe(2_000), { timeout: 10_000 });
    await tab.stop();
    // An explicit resync first, then the snapshot under the same id, then the retained events.
    expect(tab.received.slice(0, 2).map((item) => item.event)).toEqual([{ type: "resync" }, RESYNC]);
    expect(tab.received[1]?.seq).toBe(tab.received[0]?.seq);
    const after = tab.received.slice(2).map((item) => item.seq);
    expect(after[0]).toBeGreaterThan(6);
    expect(after).toEqual(Array.from({ length: after.length }, (_, index) => (after[0] ?? 0) + index));
  });

  it("a node taking over a session continues the stream's numbering", async () => {
    const first = node();
    await first.prepare("handover");
    for (let index = 1; index <= 10; index++) first.publish("handover", notice(index));
    await first.flush();
    const second = node();
    await second.prepare("handover");
    expect(second.lastSeq("handover")).toBe(10);
    expect(second.publish("handover", notice(11))).toBe(11);
    await second.flush();
    const [last] = await redis.inspector().xrevrange("cairn:events:handover", "+", "-", "COUNT", 1);
    expect(last?.[0]).toBe("11-0");
  });

  it("hands each event over with its JSON, the stream entry's payload, on the node that published it and on one that read it", async () => {
    const owner = node();
    const reader = node();
    await owner.prepare("json");
    const here = follow(owner, "json", 0);
    const there = follow(reader, "json", 0);
    for (let index = 1; index <= 3; index++) owner.publish("json", notice(index));
    await vi.waitFor(() => expect(there.lastSeq()).toBe(3), { timeout: 10_000 });
    await vi.waitFor(() => expect(here.lastSeq()).toBe(3), { timeout: 10_000 });
    await here.stop();
    await there.stop();
    const entries = await redis.inspector().xrange("cairn:events:json", "-", "+");
    const payloads = entries.map(([, fields]) => fields[1]);
    expect(payloads).toEqual([1, 2, 3].map((index) => JSON.stringify(notice(index))));
    expect(here.received.map((item) => item.json)).toEqual(payloads);
    expect(there.received.map((item) => item.json)).toEqual(payloads);
    // A replay from the stream (a node that holds none of it) carries it too.
    const late = follow(node(), "json", 1);
    await vi.waitFor(() => expect(late.lastSeq()).toBe(3), { timeout: 10_000 });
    await late.stop();
    expect(late.received.map((item) => item.json)).toEqual(payloads.slice(1));
  });

  it("replays what the node holds in memory at once, and what it does not from the stream", async () => {
    const owner = node();
    await owner.prepare("memory");
    for (let index = 1; index <= 5; index++) owner.publish("memory", notice(index));
    await owner.flush();
    const held = owner.replay("memory", 2);
    expect(held).not.toBeInstanceOf(Promise);
    expect((held as Awaited<typeof held>).events.map((item) => item.seq)).toEqual([3, 4, 5]);
    const other = node();
    const read = other.replay("memory", 2);
    expect(read).toBeInstanceOf(Promise);
    expect((await read).events.map((item) => item.seq)).toEqual([3, 4, 5]);
  });

  it("one blocking reader per node serves many sessions and many tabs", async () => {
    const owner = node();
    const watcher = node();
    const sessions = Array.from({ length: 40 }, (_, index) => `many-${index}`);
    for (const sessionId of sessions) await owner.prepare(sessionId);
    const tabs = sessions.flatMap((sessionId) => [follow(watcher, sessionId, 0), follow(watcher, sessionId, 0)]);
    for (let round = 1; round <= 5; round++) for (const sessionId of sessions) owner.publish(sessionId, notice(round));
    await vi.waitFor(() => expect(tabs.every((tab) => tab.lastSeq() === 5)).toBe(true), { timeout: 10_000 });
    for (const tab of tabs) await tab.stop();
    expect(tabs.every((tab) => tab.received.map((item) => item.seq).join() === "1,2,3,4,5")).toBe(true);
    expect(watcher.listenerCount()).toBe(0);
    // The watcher node holds two connections in all: commands, and the one blocked reader.
    const clientList = await redis.inspector().client("LIST");
    expect(
      String(clientList)
        .split("\n")
        .filter((line) => line.includes("cmd=xread")).length,
    ).toBeLessThanOrEqual(redis.count());
  });
});
