import { Redis } from "ioredis";
import { describe, expect, it, vi } from "vitest";
import type { SequencedEvent } from "../../router/context.ts";
import type { SessionEvent } from "../../router/types.ts";
import { followBus, useRedisNodes } from "./redis-bus-testing.ts";
import { eventOf } from "./stream-entries.ts";

const said = (text: string): SessionEvent => ({ type: "notice", level: "info", code: "step", message: text });
const textOf = (item: SequencedEvent) => (item.event.type === "notice" ? item.event.message : item.event.type);

describe("fenced event streams: a stale owner cannot append (private redis-server)", () => {
  const redis = useRedisNodes();
  /** A node: its bus appends under the generation `leases` says it holds. */
  const node = (leases: Map<string, number>, errors: string[]) =>
    redis.node({ fence: (sessionId) => leases.get(sessionId), onError: (error) => errors.push(error.message) });
  const entries = async (sessionId: string) =>
    (await redis.inspector().xrange(`cairn:events:${sessionId}`, "-", "+")).map(([id, fields]) => {
      const event = eventOf(fields);
      return `${id} ${event?.type === "notice" ? event.message : event?.type}`;
    });

  it("refuses the appends of an owner whose lease was taken over, even numbered past the stream's end", async () => {
    const leasesA = new Map([["s1", 1]]);
    const leasesB = new Map<string, number>();
    const errorsA: string[] = [];
    const nodeA = node(leasesA, errorsA);
    const nodeB = node(leasesB, []);
    await nodeA.prepare("s1");
    for (const text of ["a1", "a2", "a3"]) nodeA.publish("s1", said(text));
    await nodeA.flush();

    // A tab on node A (the owner until now) follows the session.
    const following = followBus(nodeA, "s1", 0, [said("snapshot")]);
    const tab = following.received;
    await vi.waitFor(() => expect(tab.map(textOf)).toEqual(["a1", "a2", "a3"]));

    // Node B takes the session over (generation 2) and publishes one event.
    leasesB.set("s1", 2);
    await nodeB.raiseFence("s1", 2);
    await nodeB.prepare("s1");
    expect(nodeB.publish("s1", said("b4"))).toBe(4);
    await nodeB.flush();

    // Node A wakes up still believing it holds generation 1: it publishes more than B did, so
    // without the fence its later entries (5-0 onwards) would land after B's in the stream.
    const before = nodeA.lastSeq("s1");
    for (const text of ["stale-1", "stale-2", "stale-3", "stale-4", "stale-5"]) nodeA.publish("s1", said(text));
    await nodeA.flush();
    expect(await entries("s1")).toEqual(["1-0 a1", "2-0 a2", "3-0 a3", "4-0 b4"]);
    expect(errorsA.some((message) => message.includes("refused to publish to session s1: lease generation 1 is no longer current"))).toBe(true);

    // A's own tab saw some stale events before the refusal came back: it is told to resync, and
    // from there on it follows the stream as B writes it. Whether B's b4 reached A's reader before
    // A's stale publishes (then the tab saw it first and the resync comes after it, at seq 4) or
    // after them (the resync comes at seq 3 and b4 follows the snapshot) is a race; either way the
    // tab holds the snapshot plus exactly the stream's entries after the resync's seq.
    const afterResync = (resyncSeq: number, entryTexts: string[]) => [
      "resync",
      "snapshot",
      ...entryTexts.filter((entry) => Number.parseInt(entry, 10) > resyncSeq).map((entry) => entry.split(" ")[1]),
    ];
    const lastResync = () => tab.findLastIndex((item) => item.event.type === "resync");
    const streamed = await entries("s1");
    await vi.waitFor(() => {
      expect(lastResync()).toBeGreaterThan(0);
      const resyncSeq = (tab[lastResync()] as SequencedEvent).seq;
      expect(tab.slice(lastResync()).map(textOf)).toEqual(afterResync(resyncSeq, streamed));
    });
    expect(tab[lastResync()]?.seq).toBeLessThanOrEqual(before);
    expect(tab.some((item) => textOf(item) === "b4")).toBe(true);

    // Further publishes under the stale generation are dropped at once; B's go on reaching A's tab.
    nodeA.publish("s1", said("stale-6"));
    expect(nodeB.publish("s1", said("b5"))).toBe(5);
    await Promise.all([nodeA.flush(), nodeB.flush()]);
    expect(await entries("s1")).toEqual(["1-0 a1", "2-0 a2", "3-0 a3", "4-0 b4", "5-0 b5"]);
    await vi.waitFor(() => expect(tab.at(-1) && textOf(tab.at(-1) as SequencedEvent)).toBe("b5"));
    expect(tab.slice(lastResync()).map(textOf)).toEqual(afterResync((tab[lastResync()] as SequencedEvent).seq, await entries("s1")));

    // A taking the session back (generation 3) publishes again, after B's entries.
    leasesA.set("s1", 3);
    await nodeA.raiseFence("s1", 3);
    await nodeA.prepare("s1");
    expect(nodeA.publish("s1", said("a6"))).toBe(6);
    await nodeA.flush();
    expect((await entries("s1")).at(-1)).toBe("6-0 a6");
    await following.stop();
  });

  it("a node that holds no lease for a session publishes nothing to it", async () => {
    const errors: string[] = [];
    const follower = node(new Map(), errors);
    await follower.prepare("s2");
    follower.publish("s2", said("not mine"));
    follower.publish("s2", said("still not mine"));
    await follower.flush();
    expect(await entries("s2")).toEqual([]);
    expect(follower.lastSeq("s2")).toBe(0);
    // Said once, not once per event.
    expect(errors).toEqual(["refused to publish to session s2: this node holds no lease for it"]);
  });

  it("the fence only rises: raising it to an older generation leaves it, and the newer owner keeps appending", async () => {
    const leases = new Map([["s3", 5]]);
    const owner = node(leases, []);
    await owner.raiseFence("s3", 5);
    await owner.raiseFence("s3", 2);
    await owner.prepare("s3");
    owner.publish("s3", said("kept"));
    await owner.flush();
    expect(await entries("s3")).toEqual(["1-0 kept"]);
    expect(await redis.inspector().get("cairn:events:s3:fence")).toBe("5");
  });

  it("what one turn publishes goes in one fenced command, in order; an entry Redis refuses is reported and the rest still land", async () => {
    const errors: string[] = [];
    const leases = new Map([["s4", 1]]);
    const owner = node(leases, errors);
    const inspect = redis.inspector();
    // Another writer (an earlier life of the session) already holds 1-0: the owner's first event collides with it.
    await inspect.xadd("cairn:events:s4", "1-0", "e", JSON.stringify(said("earlier")));
    // ioredis runs a script by EVALSHA, or by EVAL the first time on a connection.
    const scriptCalls = async () => {
      const stats = await inspect.info("commandstats");
      return [/cmdstat_evalsha:calls=(\d+)/, /cmdstat_eval:calls=(\d+)/].reduce((sum, pattern) => sum + Number(pattern.exec(stats)?.[1] ?? 0), 0);
    };
    const before = await scriptCalls();
    for (let index = 1; index <= 5; index++) owner.publish("s4", said(`batched ${index}`));
    await owner.flush();
    expect(await scriptCalls()).toBe(before + 1);
    expect(await entries("s4")).toEqual(["1-0 earlier", "2-0 batched 2", "3-0 batched 3", "4-0 batched 4", "5-0 batched 5"]);
    expect(errors).toHaveLength(1);
    expect(errors[0]).toMatch(/^1-0: ERR .*equal or smaller than the target stream top item/);
  });

  it("what many sessions publish in one turn goes to Redis in one socket write and one fenced script call", async () => {
    const sessions = Array.from({ length: 20 }, (_, index) => `many-${index}`);
    const owner = node(new Map(sessions.map((sessionId) => [sessionId, 1])), []);
    const inspect = redis.inspector();
    const scriptCalls = async () => Number(/cmdstat_evalsha:calls=(\d+)/.exec(await inspect.info("commandstats"))?.[1] ?? 0);
    // The first event of each opens the connections (ioredis's ready check, the script's first EVAL).
    for (const sessionId of sessions) owner.publish(sessionId, said("first"));
    await owner.flush();
    const scriptsBefore = await scriptCalls();
    const socket = redis.connectionOf(owner).stream;
    const write = vi.spyOn(socket, "write");
    for (const sessionId of sessions) for (const text of ["second", "third"]) owner.publish(sessionId, said(text));
    await owner.flush();
    expect(write).toHaveBeenCalledTimes(1);
    write.mockRestore();
    expect((await scriptCalls()) - scriptsBefore).toBe(1);
    for (const sessionId of sessions) expect(await entries(sessionId)).toEqual(["1-0 first", "2-0 second", "3-0 third"]);
  });

  it("in one script call, the session whose fence has passed is refused whole and the others land", async () => {
    const errors: string[] = [];
    const leases = new Map([
      ["mixed-a", 1],
      ["mixed-stale", 1],
      ["mixed-b", 1],
    ]);
    const owner = node(leases, errors);
    const inspect = redis.inspector();
    // Another node took mixed-stale over (generation 2) and wrote its first entry.
    await inspect.set("cairn:events:mixed-stale:fence", "2");
    await inspect.xadd("cairn:events:mixed-stale", "1-0", "e", JSON.stringify(said("theirs")));
    const scriptCalls = async () => Number(/cmdstat_evalsha:calls=(\d+)/.exec(await inspect.info("commandstats"))?.[1] ?? 0);
    owner.publish("mixed-a", said("warm-up"));
    await owner.flush();
    const scriptsBefore = await scriptCalls();
    for (const sessionId of ["mixed-a", "mixed-stale", "mixed-b"]) for (const text of ["x", "y"]) owner.publish(sessionId, said(`${sessionId} ${text}`));
    await owner.flush();
    expect((await scriptCalls()) - scriptsBefore).toBe(1);
    expect(await entries("mixed-a")).toEqual(["1-0 warm-up", "2-0 mixed-a x", "3-0 mixed-a y"]);
    expect(await entries("mixed-stale")).toEqual(["1-0 theirs"]);
    expect(await entries("mixed-b")).toEqual(["1-0 mixed-b x", "2-0 mixed-b y"]);
    expect(errors).toEqual(["refused to publish to session mixed-stale: lease generation 1 is no longer current (the stream's fence is at 2)"]);
    // The refused session's later publishes are dropped here; the others go on.
    owner.publish("mixed-stale", said("dropped"));
    owner.publish("mixed-b", said("mixed-b z"));
    await owner.flush();
    expect(await entries("mixed-stale")).toEqual(["1-0 theirs"]);
    expect((await entries("mixed-b")).at(-1)).toBe("3-0 mixed-b z");
  });

  it("a turn publishing more than one script call holds is split over several calls, every entry in order", async () => {
    const sessions = Array.from({ length: 6 }, (_, index) => `split-${index}`);
    const owner = node(new Map(sessions.map((sessionId) => [sessionId, 1])), []);
    const inspect = redis.inspector();
    const scriptCalls = async () => {
      const stats = await inspect.info("commandstats");
      return [/cmdstat_evalsha:calls=(\d+)/, /cmdstat_eval:calls=(\d+)/].reduce((sum, pattern) => sum + Number(pattern.exec(stats)?.[1] ?? 0), 0);
    };
    const before = await scriptCalls();
    // 6 × 300 entries: each session's 300 are two batches (256 + 44), 1,800 entries over at least two calls of at most 1,024.
    for (const sessionId of sessions) for (let index = 1; index <= 300; index++) owner.publish(sessionId, said(`${index}`));
    await owner.flush();
    const calls = (await scriptCalls()) - before;
    expect(calls).toBeGreaterThanOrEqual(2);
    expect(calls).toBeLessThanOrEqual(3);
    for (const sessionId of sessions) expect(await entries(sessionId)).toEqual(Array.from({ length: 300 }, (_, index) => `${index + 1}-0 ${index + 1}`));
  });

  it("the owner does not parse again the entries it reads back from its own stream; a follower parses each once", async () => {
    const leases = new Map([["own", 1]]);
    const owner = node(leases, []);
    const follower = node(new Map(), []);
    await owner.prepare("own");
    const onOwner = followBus(owner, "own", 0, []);
    const onFollower = followBus(follower, "own", 0, []);
    const parse = vi.spyOn(JSON, "parse");
    const parsedEntries = () => parse.mock.calls.filter(([text]) => typeof text === "string" && text.includes("own entry")).length;
    for (let index = 1; index <= 50; index++) owner.publish("own", said(`own entry ${index}`));
    await owner.flush();
    await vi.waitFor(() => expect([onOwner.lastSeq(), onFollower.lastSeq()]).toEqual([50, 50]));
    // Both readers read the 50 entries from Redis (the owner's within milliseconds of the follower's): only the follower's are parsed.
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(parsedEntries()).toBe(50);
    parse.mockRestore();
    expect(onOwner.received.map(textOf)).toEqual(onFollower.received.map(textOf));
    await Promise.all([onOwner.stop(), onFollower.stop()]);
  });

  it("the owner's tabs get its events without it reading its own stream; once the lease moves they get the new owner's, each once", async () => {
    const leasesA = new Map([["mine", 1]]);
    const leasesB = new Map<string, number>();
    const owner = node(leasesA, []);
    const next = node(leasesB, []);
    await owner.prepare("mine");
    // Every XREAD any node of this file sends, by the streams it names.
    const xread = vi.spyOn(Redis.prototype, "xread");
    const readsOf = (key: string) => xread.mock.calls.filter((args) => (args as unknown[]).includes(key)).length;
    try {
      const tab = followBus(owner, "mine", 0, []);
      for (let index = 1; index <= 40; index++) owner.publish("mine", said(`A ${index}`));
      await owner.flush();
      await vi.waitFor(() => expect(tab.lastSeq()).toBe(40));
      for (let index = 41; index <= 60; index++) owner.publish("mine", said(`A ${index}`));
      await owner.flush();
      await vi.waitFor(() => expect(tab.lastSeq()).toBe(60));
      await new Promise((resolve) => setTimeout(resolve, 200));
      expect(readsOf("cairn:events:mine")).toBe(0);
      // The lease moves to the other node, which appends from where the stream is.
      leasesA.delete("mine");
      leasesB.set("mine", 2);
      await next.raiseFence("mine", 2);
      await next.prepare("mine");
      for (let index = 61; index <= 80; index++) next.publish("mine", said(`B ${index}`));
      await next.flush();
      await vi.waitFor(() => expect(tab.lastSeq()).toBe(80), { timeout: 5_000 });
      expect(readsOf("cairn:events:mine")).toBeGreaterThan(0);
      await tab.stop();
      expect(tab.received.map((item) => item.seq)).toEqual(Array.from({ length: 80 }, (_, index) => index + 1));
      expect(tab.received.map(textOf)).toEqual(Array.from({ length: 80 }, (_, index) => `${index < 60 ? "A" : "B"} ${index + 1}`));
    } finally {
      xread.mockRestore();
    }
  });
  it("an owner told its lease went elsewhere reads the stream again at once, not after its blocking read's timeout", async () => {
    const leasesA = new Map([["handed", 1]]);
    const leasesB = new Map<string, number>();
    // A blocking read far longer than the test waits: only the wake-up can bring the new owner's events in time.
    const owner = redis.node({ fence: (sessionId) => leasesA.get(sessionId), readerBlockMs: 30_000 });
    const next = node(leasesB, []);
    await owner.prepare("handed");
    const tab = followBus(owner, "handed", 0, []);
    for (let index = 1; index <= 5; index++) owner.publish("handed", said(`A ${index}`));
    await owner.flush();
    await vi.waitFor(() => expect(tab.lastSeq()).toBe(5));
    // Let the reader park (it reads nothing while only this node appends).
    await new Promise((resolve) => setTimeout(resolve, 200));
    leasesA.delete("handed");
    leasesB.set("handed", 2);
    await next.raiseFence("handed", 2);
    await next.prepare("handed");
    for (let index = 6; index <= 10; index++) next.publish("handed", said(`B ${index}`));
    await next.flush();
    owner.ownerLeft("handed");
    await vi.waitFor(() => expect(tab.lastSeq()).toBe(10), { timeout: 3_000 });
    await tab.stop();
    expect(tab.received.map(textOf)).toEqual([1, 2, 3, 4, 5].map((n) => `A ${n}`).concat([6, 7, 8, 9, 10].map((n) => `B ${n}`)));
  });
  it("a stale owner refused after reading past the stream's end gets the new owner's next events at once", async () => {
    const leasesA = new Map([["stale", 1]]);
    const leasesB = new Map<string, number>();
    const owner = redis.node({ fence: (sessionId) => leasesA.get(sessionId), readerBlockMs: 30_000, onError: () => undefined });
    const next = node(leasesB, []);
    await owner.prepare("stale");
    const tab = followBus(owner, "stale", 0, []);
    for (let index = 1; index <= 5; index++) owner.publish("stale", said(`A ${index}`));
    await owner.flush();
    await vi.waitFor(() => expect(tab.lastSeq()).toBe(5));
    // The session is taken over; the old owner does not know yet and goes on: 6 to 10 reach its tab only.
    leasesB.set("stale", 2);
    await next.raiseFence("stale", 2);
    await next.prepare("stale");
    for (let index = 6; index <= 10; index++) owner.publish("stale", said(`stale ${index}`));
    // A tab on another session wakes the owner's reader while those are still unsent, so it runs past them.
    const other = followBus(owner, "elsewhere", 0, []);
    await new Promise((resolve) => setTimeout(resolve, 200));
    await owner.flush();
    // The new owner appends 6 and 7: the old owner's tab must get them (after its resync), not wait for a later one.
    for (const index of [6, 7]) next.publish("stale", said(`B ${index}`));
    await next.flush();
    await vi.waitFor(() => expect(tab.received.map(textOf)).toContain("B 7"), { timeout: 3_000 });
    await Promise.all([tab.stop(), other.stop()]);
  });
});
