import { mkdir, mkdtemp, realpath, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Redis } from "ioredis";
import postgres from "postgres";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startPrivatePostgres, startPrivateRedis, type PrivateService } from "@cairn/api/distributed-testing";
import { startModelSim, type ModelSim, type Turn } from "@cairn/model-sim";
import { startApiNode, type ApiNodeProcess } from "../support/api-node-process.ts";
import { apiClient, eventually, EventsSubscriber } from "./api-harness.ts";

const LEASE_TTL_MS = 3_000;

/**
 * What a node taking a session over carries on, with API nodes as separate processes over one
 * private PostgreSQL and Redis: a paused owner that wakes after the takeover cannot append to the
 * session's event stream.
 */
describe("distributed mode: what a takeover carries over", () => {
  let database: PrivateService;
  let redis: PrivateService;
  let sim: ModelSim;
  let parent: string;
  let workspace: string;
  let sql: postgres.Sql;
  let inspect: Redis;
  let nodeB: ApiNodeProcess;
  const nodes: ApiNodeProcess[] = [];
  const tabs: EventsSubscriber[] = [];

  const text = (match: string, answer: string): Turn => ({ match: { firstMessageIncludes: match }, content: [{ type: "text", text: answer }] });
  const startNode = async (nodeId: string): Promise<ApiNodeProcess> => {
    const node = await startApiNode({ nodeId, workspace, parent, simUrl: sim.url, databaseUrl: database.url, redisUrl: redis.url, leaseTtlMs: LEASE_TTL_MS });
    nodes.push(node);
    return node;
  };
  const follow = (node: ApiNodeProcess, sessionId: string): EventsSubscriber => {
    const tab = new EventsSubscriber(node.url, node.token, sessionId);
    tabs.push(tab);
    return tab;
  };
  const lease = async (sessionId: string) =>
    (await sql<{ owner: string | null; generation: string }[]>`select owner, generation from cairn_session_leases where session_id = ${sessionId}`)[0];
  const lines = async (sessionId: string) =>
    (await sql<{ line: string }[]>`select line from cairn_transcript_lines where session_id = ${sessionId} order by line_no`).map((row) => row.line);

  beforeAll(async () => {
    [database, redis] = await Promise.all([startPrivatePostgres(), startPrivateRedis()]);
    sql = postgres(database.url, { max: 2, onnotice: () => undefined });
    inspect = new Redis(redis.url, { maxRetriesPerRequest: null });
    parent = await realpath(await mkdtemp(join(tmpdir(), "cairn-dist-takeover-")));
    workspace = join(parent, "ws");
    await mkdir(workspace);
    await writeFile(join(workspace, "README.md"), "# shared workspace\n");
    sim = await startModelSim({
      scenario: {
        turns: [
          // Many small chunks: once woken, the stale owner has far more to publish than the new owner published meanwhile.
          { match: { firstMessageIncludes: "FENCE-EVENTS" }, content: [{ type: "text", text: "STALE-OWNER-TEXT ".repeat(2_000) }], chunkDelayMs: 2 },
          text("FENCE-EVENTS", "New owner here."),
        ],
      },
    });
    nodeB = await startNode("node-b");
  }, 120_000);

  afterAll(async () => {
    await Promise.all(tabs.map((tab) => tab.stop()));
    for (const node of nodes) {
      if (node.child.signalCode === null && node.child.exitCode === null) node.child.kill("SIGCONT");
      await node.kill();
    }
    inspect?.disconnect();
    await sql?.end();
    await sim?.close();
    await Promise.all([database?.stop(), redis?.stop()]);
    await rm(parent, { recursive: true, force: true });
  });

  it("a paused owner that wakes after the takeover cannot append to the session's event stream", async () => {
    const nodeC = await startNode("node-c");
    const onC = apiClient(nodeC.url, nodeC.token);
    const onB = apiClient(nodeB.url, nodeB.token);
    const { sessionId } = await onC.session.create.mutate();
    await onC.session.send.mutate({ sessionId, prompt: "FENCE-EVENTS: stream slowly" });
    const tab = follow(nodeB, sessionId);
    await eventually(() => expect(tab.events().filter((event) => event.type === "text-delta").length).toBeGreaterThan(3), 30_000);

    nodeC.child.kill("SIGSTOP");
    // The tab on B makes B take the session over once C's lease lapses; B publishes only a few events (the turn's end).
    await eventually(async () => expect(await lease(sessionId)).toEqual({ owner: "node-b", generation: "2" }), 20_000);
    await eventually(() => expect(tab.events().some((event) => event.type === "notice" && event.code === "turn_interrupted")).toBe(true), 10_000);
    const stream = `cairn:events:${sessionId}`;
    const takenOverAt = (await inspect.xrevrange(stream, "+", "-", "COUNT", 1))[0]?.[0];

    // C goes on streaming what the simulator sent while it was stopped, under its old generation: refused.
    nodeC.child.kill("SIGCONT");
    await eventually(() => expect(nodeC.stderr()).toContain(`refused to publish to session ${sessionId}`), 30_000);
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    const after = await inspect.xrange(stream, `(${takenOverAt}`, "+");
    expect(after.map(([, fields]) => fields.join(" ")).filter((entry) => entry.includes("STALE-OWNER-TEXT"))).toEqual([]);
    // The stream's ids stay one numbering, without a hole, and the tab on B saw nothing of C after the takeover.
    const ids = (await inspect.xrange(stream, "-", "+")).map(([id]) => Number(id.split("-")[0]));
    expect(ids).toEqual(ids.map((_, index) => index + 1));
    const handedOver = tab.events().findIndex((event) => event.type === "notice" && event.code === "turn_interrupted");
    expect(
      tab
        .events()
        .slice(handedOver)
        .filter((event) => event.type === "text-delta" && event.text.includes("STALE-OWNER-TEXT")),
    ).toEqual([]);
    // B carries on with the session.
    await onB.session.send.mutate({ sessionId, prompt: "Take it over" });
    await eventually(
      () =>
        expect(
          tab
            .events()
            .filter((event) => event.type === "result")
            .at(-1),
        ).toMatchObject({ terminal: { reason: "completed" } }),
      30_000,
    );
    expect((await lines(sessionId)).some((line) => line.includes("New owner here."))).toBe(true);
  }, 120_000);
});
