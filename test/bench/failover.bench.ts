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
import { trpcCall } from "./trpc-call.ts";

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
      const { sessionId } = await trpcCall<{ sessionId: string }>(nodeA, "session.create", {});
      await trpcCall(nodeA, "session.send", { sessionId, prompt: "Answer slowly" });
      await until(async () => {
        const snapshot = await trpcCall<Snapshot>(nodeA, "session.get", { sessionId }, "GET");
        return snapshot.running && snapshot.streamingFromSeq !== null;
      });
      const killedAt = performance.now();
      await nodeA.kill();
      const snapshot = await trpcCall<Snapshot>(nodeB, "session.get", { sessionId }, "GET");
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

async function until(check: () => Promise<boolean>, timeoutMs = 30_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error("timed out");
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}
