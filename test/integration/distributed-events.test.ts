import { Redis } from "ioredis";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { CairnServer } from "@cairn/api";
import { apiClient, eventually, EventsSubscriber } from "./api-harness.ts";
import { type DistributedServices, startDistributedServices, startInProcessNode } from "./distributed-harness.ts";

const text = (value: string) => ({ content: [{ type: "text" as const, text: value }] });

/** Two API nodes over one PostgreSQL and one Redis: a tab follows a session running on the other node and moves between nodes. */
describe("distributed mode: live events over Redis Streams", () => {
  let services: DistributedServices;
  const nodes: CairnServer[] = [];

  const startNode = async (nodeId: string): Promise<CairnServer> => {
    const server = await startInProcessNode(services, nodeId);
    nodes.push(server);
    return server;
  };

  beforeAll(async () => {
    services = await startDistributedServices({ name: "events", scenario: { turns: [{ ...text("streamed slowly ".repeat(120)), chunkDelayMs: 4 }] } });
  }, 120_000);

  afterAll(async () => {
    for (const node of nodes) await node.close();
    await services?.stop();
  });

  it("a tab on node B follows a run on node A, reconnects to node A mid-run, and gets every event id once, as in the stream", async () => {
    const nodeA = await startNode("node-a");
    const nodeB = await startNode("node-b");
    expect(nodeB.distributed?.describe().join("\n")).toMatch(/Redis: redis:\/\/127\.0\.0\.1:\d+ \(event streams\)/);
    const clientA = apiClient(nodeA.url, nodeA.token);
    const { sessionId } = await clientA.session.create.mutate();
    await clientA.session.send.mutate({ sessionId, prompt: "Stream something long" });

    // A tab on B opens the session from B's list, once A has written its first line to the shared store.
    const clientB = apiClient(nodeB.url, nodeB.token);
    await eventually(async () => expect((await clientB.session.list.query()).map((entry) => entry.sessionId)).toContain(sessionId), 30_000);
    const onB = new EventsSubscriber(nodeB.url, nodeB.token, sessionId);
    await eventually(() => expect(onB.events().filter((event) => event.type === "text-delta").length).toBeGreaterThan(5), 30_000);
    await onB.stop();
    const lastOnB = onB.received.at(-1)?.seq;
    expect(lastOnB).toBeDefined();
    const onA = new EventsSubscriber(nodeA.url, nodeA.token, sessionId, { lastEventId: String(lastOnB) });
    await eventually(() => expect(onA.events().some((event) => event.type === "result")).toBe(true), 60_000);
    await onA.stop();
    expect([...onB.errors, ...onA.errors]).toEqual([]);

    // No duplicate, no gap: the ids the tab saw are strictly increasing, each one an entry of the session's stream,
    // and whatever it skipped are deltas it received joined into the next one (a lagging tab gets them coalesced).
    const seen = [...onB.received, ...onA.received];
    const ids = seen.map((item) => item.seq);
    expect(ids).toEqual([...new Set(ids)].sort((left, right) => left - right));
    const inspect = new Redis(services.redis.url);
    try {
      const entries = await inspect.xrange(`cairn:events:${sessionId}`, "-", "+");
      const streamIds = entries.map(([id]) => Number(id.split("-")[0]));
      expect(streamIds).toEqual(Array.from({ length: streamIds.length }, (_, index) => index + 1));
      expect(ids.every((id) => streamIds.includes(id))).toBe(true);
      expect(ids.at(-1)).toBe(streamIds.at(-1));
      const streamed = entries
        .map(([, fields]) => JSON.parse(fields[1] ?? "{}") as { type: string; text?: string })
        .filter((event) => event.type === "text-delta")
        .map((event) => event.text)
        .join("");
      const received = seen.flatMap((item) => (item.event.type === "text-delta" ? [item.event.text] : [])).join("");
      expect(received).toBe(streamed);
      expect(received).toBe("streamed slowly ".repeat(120));
    } finally {
      inspect.disconnect();
    }
  }, 120_000);

  it("a tab on node B follows a session node A has just created, before its first line is stored, from its very first event", async () => {
    const nodeA = nodes[0] ?? (await startNode("node-a"));
    const nodeB = nodes[1] ?? (await startNode("node-b"));
    const clientA = apiClient(nodeA.url, nodeA.token);
    const { sessionId } = await clientA.session.create.mutate();
    // Nothing is stored yet, but the session is known to the cluster: B answers its snapshot (from A) and follows it.
    const clientB = apiClient(nodeB.url, nodeB.token);
    expect(await nodeA.runtime.transcripts.load(sessionId)).toBeUndefined();
    expect((await clientB.session.get.query({ sessionId })).messages).toEqual([]);
    const onB = new EventsSubscriber(nodeB.url, nodeB.token, sessionId);
    await eventually(() => expect(nodeB.hub.bus.listenerCount(sessionId)).toBe(1), 30_000);
    await clientA.session.send.mutate({ sessionId, prompt: "The first prompt of a new session" });
    await eventually(() => expect(onB.events().some((event) => event.type === "result")).toBe(true), 60_000);
    await onB.stop();
    // One connection, no "not found", and every event of the stream from the first one on.
    expect(onB.errors).toEqual([]);
    expect(onB.connections).toBe(1);
    expect(onB.received[0]?.seq).toBe(1);
    const firstMessage = onB.events().find((event) => event.type === "message");
    expect(JSON.stringify(firstMessage)).toContain("The first prompt of a new session");
    const ids = onB.received.map((item) => item.seq);
    expect(ids).toEqual([...new Set(ids)].sort((left, right) => left - right));
    // An id never known anywhere is still "not found".
    const unknown = new EventsSubscriber(nodeB.url, nodeB.token, "00000000-0000-4000-8000-000000000000");
    await eventually(() => expect(unknown.errors.join("")).toContain("No session"), 30_000);
    await unknown.stop();
  }, 120_000);

  it("each node answers /healthz and /readyz by address, without a token, with its shared services' states", async () => {
    const node = nodes[0] ?? (await startNode("node-c"));
    expect(await (await fetch(`${node.url}/healthz`)).json()).toMatchObject({ status: "ok", nodeId: expect.any(String) });
    const ready = await fetch(`${node.url}/readyz`);
    expect(ready.status).toBe(200);
    expect(await ready.json()).toMatchObject({ status: "ready", checks: { postgres: "ok", redis: "ok" } });
    // Redis goes away and comes back: readiness follows it, and the node reconnects by itself.
    await services.redis.restart({ downMs: 0 });
    await eventually(async () => expect((await fetch(`${node.url}/readyz`)).status).toBe(200), 30_000);
  }, 60_000);
});
