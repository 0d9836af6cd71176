// Failover after kill -9: two API nodes as separate processes over a private PostgreSQL and Redis. Node A
// runs a prompt (a slow stream); it is killed with SIGKILL mid-run, and a command sent to node B at once
// (the session's snapshot) waits until B has taken the session over (the lease lapsed, the transcript
// reloaded, the cut-off turn recorded as interrupted). Timed from the kill to B's answer, with the
// default lease TTL (8 s). Each round kills a fresh node A.
import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { startPrivatePostgres, startPrivateRedis } from "@cairn/api/distributed-testing";
import { startModelSim } from "@cairn/model-sim";
import { startApiNode, type ApiNodeProcess } from "../support/api-node-process.ts";
import { median, report } from "./report.ts";

const ROUNDS = 3;

type Snapshot = { running: boolean; streamingFromSeq: number | null; messages: unknown[] };

export default async function run(): Promise<void> {
  const [database, redis] = await Promise.all([startPrivatePostgres(), startPrivateRedis()]);
  const sim = await startModelSim({ scenario: { turns: [] } });
  const parent = await mkdtemp(join(tmpdir(), "cairn-bench-failover-"));
  const workspace = join(parent, "ws");
  await mkdir(workspace);
  await writeFile(join(workspace, "README.md"), "# failover\n");
  const nodes: ApiNodeProcess[] = [];
  const start = async (nodeId: string) => {
    const node = await startApiNode({ nodeId, workspace, parent, simUrl: sim.url, databaseUrl: database.url, redisUrl: redis.url });
    nodes.push(node);
    return node;
  };
  try {
    const nodeB = await start("bench-b");
    const takeovers: number[] = [];
    for (let round = 0; round < ROUNDS; round++) {
      sim.setScenario({ turns: [{ content: [{ type: "text", text: "a slow answer ".repeat(2_000) }], chunkDelayMs: 20 }] });
      const nodeA = await start(`bench-a${round}`);
      const { sessionId } = await call<{ sessionId: string }>(nodeA, "session.create", {});
      await call(nodeA, "session.send", { sessionId, prompt: "Answer slowly" });
      await until(async () => {
        const snapshot = await call<Snapshot>(nodeA, "session.get", { sessionId }, "GET");
        return snapshot.running && snapshot.streamingFromSeq !== null;
      });
      const killedAt = performance.now();
      await nodeA.kill();
      const snapshot = await call<Snapshot>(nodeB, "session.get", { sessionId }, "GET");
      takeovers.push(performance.now() - killedAt);
      if (snapshot.running || snapshot.messages.length < 2)
        throw new Error(`node B's snapshot after the takeover is not the recovered session: ${JSON.stringify(snapshot)}`);
    }
    report("failover.kill9_to_next_command_median", median(takeovers), "ms");
    report("failover.kill9_to_next_command_max", Math.max(...takeovers), "ms");
  } finally {
    for (const node of nodes) await node.kill();
    await sim.close();
    await Promise.all([database.stop(), redis.stop()]);
    await rm(parent, { recursive: true, force: true });
  }
}

/** One tRPC call over HTTP (no transformer): a mutation is a POST of the input, a query a GET with it in the URL. */
async function call<T = unknown>(node: ApiNodeProcess, path: string, input: object, method: "GET" | "POST" = "POST"): Promise<T> {
  const url = method === "GET" ? `${node.url}/api/trpc/${path}?input=${encodeURIComponent(JSON.stringify(input))}` : `${node.url}/api/trpc/${path}`;
  const response = await fetch(url, {
    method,
    headers: { authorization: `Bearer ${node.token}`, "content-type": "application/json" },
    ...(method === "POST" ? { body: JSON.stringify(input) } : {}),
  });
  const body = (await response.json()) as { result?: { data: T }; error?: unknown };
  if (!response.ok || !body.result) throw new Error(`${path} on ${node.nodeId}: ${response.status} ${JSON.stringify(body.error)}`);
  return body.result.data;
}

async function until(check: () => Promise<boolean>, timeoutMs = 30_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error("timed out");
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}
