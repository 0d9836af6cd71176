// Live events over two API nodes (issue 14): two `cairn serve --api-only` processes over a private PostgreSQL and
// Redis. Latency: the simulator emits a delta → the owner node's loop and hub → XADD to the session's Redis stream →
// the other node's XREAD → session.events SSE over HTTP → a subscriber, at 20 and 100 live sessions spread over both
// nodes (each session owned by one node, followed on the other), then 100 again on the same, warm nodes (`warm_`). The
// model side (the simulator, which timestamps each delta as it hands it to its socket) and the subscribers (the browser
// tabs, plain node:http sockets) run in processes of their own, both timestamps on CLOCK_MONOTONIC (as
// events.bench.ts). Throughput: sessions owned and followed on one node, the simulator streaming as fast as it goes;
// events are the entries of the sessions' streams (the loop may join deltas that arrive together into one event),
// deltas the simulator's text chunks delivered. The load average is printed with the figures: on a busy machine they
// measure the machine. Counts that do not depend on the load come with them: the nodes' CPU and read/write system calls
// per delta while the deltas stream (from the prompts that start them to the last one received), Redis commands per
// delta, Redis's own CPU per delta (it shares the cores with the nodes), the simulator's and the tabs' CPU per delta,
// and how busy the whole machine was meanwhile (close to 100 %, a delta's latency is mostly its wait for a core).
// Where the slow deltas are: the stretches of the round (by when the deltas left the simulator) holding deltas over
// 25 ms, usually a few that every session shares (the turns starting or ending together, one process pausing).
// CAIRN_BENCH_DIST_CPU_PROF=<dir> has each node write a CPU profile there when it stops (with the CLOCK_MONOTONIC
// microseconds each round's deltas streamed between, to cut the profile to them). CAIRN_BENCH_DIST_ROUNDS=100 runs
// only those latency rounds and no throughput round, for an A/B or a profile of one round.
// CAIRN_BENCH_DIST_NODE_FLAGS: more flags for the nodes' node (e.g. V8 flags, for an A/B of them against the same
// build). With CAIRN_BENCH_DIST_BASELINE=<another build's bin/cairn.js> a second pair of nodes runs that build over the
// same PostgreSQL and Redis, and each round runs on it first, then on this build (figures `distributed.baseline_…`).
import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { startPrivatePostgres, startPrivateRedis } from "@cairn/api/distributed-testing";
import { Redis } from "ioredis";
import { startServeProcess, type ServeProcess } from "../support/serve-process.ts";
import { machineCpuTicks, processCpuMs, processSyscalls } from "./process-stats.ts";
import { median, percentile, report } from "./report.ts";
import { trpcCall } from "./trpc-call.ts";
import { BrowserTabs, type TabsStatus } from "./browser-tabs.ts";
import { deltaLatencies, deltaSegment, latencyStalls, pacing, TimedSim } from "./timed-sim.ts";

const DELTAS_PER_SESSION = 120;
const DELTA_INTERVAL_MS = 10; // ~100 deltas/s per session, a fast model
const CONCURRENCY = [20, 100];
const ROUNDS = process.env.CAIRN_BENCH_DIST_ROUNDS?.split(",").map(Number);
const PROFILE_DIR = process.env.CAIRN_BENCH_DIST_CPU_PROF;
const BASELINE = process.env.CAIRN_BENCH_DIST_BASELINE;
const NODE_FLAGS = process.env.CAIRN_BENCH_DIST_NODE_FLAGS?.split(" ").filter(Boolean) ?? [];
const THROUGHPUT_SESSIONS = 20;
const THROUGHPUT_DELTAS = 500;
const THROUGHPUT_DELTA_INTERVAL_MS = 1; // as fast as the simulator goes, each delta still its own chunk

export default async function run(): Promise<void> {
  const [database, redis] = await Promise.all([startPrivatePostgres(), startPrivateRedis()]);
  const parent = await mkdtemp(join(tmpdir(), "cairn-bench-dist-events-"));
  const workspace = join(parent, "ws");
  await mkdir(workspace);
  await writeFile(join(workspace, "README.md"), "# bench\n");
  const sim = await TimedSim.start();
  const tabs = BrowserTabs.start();
  const pairs: Array<{ prefix: string; nodes: ServeProcess[] }> = [];
  const inspector = new Redis(redis.url, { lazyConnect: true });
  try {
    const nodeArgs = [...NODE_FLAGS, ...(PROFILE_DIR ? ["--cpu-prof", `--cpu-prof-dir=${PROFILE_DIR}`] : [])];
    const start = (nodeId: string, bin?: string) =>
      startServeProcess({
        parent,
        nodeId,
        workspace,
        modelUrl: sim.url,
        databaseUrl: database.url,
        redisUrl: redis.url,
        nodeArgs,
        warmUp: true,
        ...(bin ? { bin } : {}),
      });
    if (BASELINE) pairs.push({ prefix: "distributed.baseline_", nodes: [await start("baseline-a", BASELINE), await start("baseline-b", BASELINE)] });
    pairs.push({ prefix: "distributed.", nodes: [await start("bench-a"), await start("bench-b")] });
    report("distributed.load_average_at_start", loadavg()[0]!, "load");
    // Each node ran scratch sessions before it reported ready (`cairn serve`'s warm-up, on by default).
    for (const { prefix, nodes } of pairs) {
      const times = nodes.map(warmUpMs).filter((ms): ms is number => ms !== undefined);
      if (times.length > 0) report(`${prefix}node_warm_up_ms`, median(times), "ms");
    }
    let round = 0;
    const measured = async (prefix: string, nodes: ServeProcess[], sessions: number) => {
      const cpuBefore = await Promise.all(nodes.map(cpuMs));
      const { latencies, streaming } = await latencyRound(nodes, sim, tabs, sessions, ++round, () => redisStats(inspector));
      const cpu = (await Promise.all(nodes.map(cpuMs))).reduce((sum, after, index) => sum + after - cpuBefore[index]!, 0);
      report(`${prefix}latency_p50_at_${sessions}`, percentile(latencies, 50), "ms");
      report(`${prefix}latency_p99_at_${sessions}`, percentile(latencies, 99), "ms");
      // Both nodes over the whole round: the sessions' creation and warm-up prompts included.
      report(`${prefix}nodes_cpu_per_delta_at_${sessions}`, cpu / latencies.length, "ms");
      report(`${prefix}nodes_streaming_cpu_per_delta_at_${sessions}`, streaming.cpuMs / latencies.length, "ms");
      report(`${prefix}simulator_streaming_cpu_per_delta_at_${sessions}`, streaming.simulatorCpuMs / latencies.length, "ms");
      report(`${prefix}tabs_streaming_cpu_per_delta_at_${sessions}`, streaming.tabsCpuMs / latencies.length, "ms");
      // How much of the machine's cores were in use while the deltas streamed (nodes, harness, Redis, PostgreSQL, all).
      report(`${prefix}machine_busy_while_streaming_at_${sessions}`, (streaming.machine.busy / streaming.machine.total) * 100, "%");
      report(`${prefix}nodes_syscalls_per_delta_at_${sessions}`, streaming.syscalls / latencies.length, "syscalls");
      report(`${prefix}redis_commands_per_delta_at_${sessions}`, streaming.redisCommands / latencies.length, "commands");
      report(`${prefix}redis_cpu_per_delta_at_${sessions}`, (streaming.redisCpuMs * 1000) / latencies.length, "us");
    };
    for (const sessions of ROUNDS ?? CONCURRENCY) {
      for (const { prefix, nodes } of pairs) await measured(prefix, nodes, sessions);
    }
    // 100 sessions again on the same nodes, now past their start: what nodes that have been running serve (their code
    // optimised, their heaps grown). The target stays on the first round at 100, which includes that warm-up.
    for (const { prefix, nodes } of ROUNDS ? [] : pairs) await measured(`${prefix}warm_`, nodes, 100);
    for (const { prefix, nodes } of ROUNDS ? [] : pairs) {
      const throughput = await throughputRound(nodes[0]!, sim, tabs, ++round);
      report(`${prefix}events_per_second_one_node`, throughput.eventsPerSecond, "events/s");
      report(`${prefix}deltas_per_second_one_node`, throughput.deltasPerSecond, "deltas/s");
      report(`${prefix}node_cpu_per_event`, throughput.cpuPerEventMs, "ms");
    }
    report("distributed.load_average_at_end", loadavg()[0]!, "load");
  } finally {
    inspector.disconnect();
    for (const { nodes } of pairs) for (const node of nodes) await node.stop();
    await sim.close();
    await tabs.close();
    await Promise.all([database.stop(), redis.stop()]);
    await rm(parent, { recursive: true, force: true });
  }
}

type Counts = {
  cpuMs: number;
  /** The simulator's and the tabs' processes (the harness, sharing the machine with the nodes). */
  simulatorCpuMs: number;
  tabsCpuMs: number;
  machine: { busy: number; total: number };
  syscalls: number;
  redisCommands: number;
  redisCpuMs: number;
  byCommand: Map<string, number>;
};

async function latencyRound(
  nodes: ServeProcess[],
  sim: TimedSim,
  tabs: BrowserTabs,
  sessions: number,
  round: number,
  redisStats: () => Promise<RedisStats>,
): Promise<{ latencies: number[]; streaming: Counts }> {
  const counts = async (): Promise<Counts> => {
    const [cpu, simulatorCpuMs, tabsCpuMs, machine, syscalls, redis] = await Promise.all([
      Promise.all(nodes.map(cpuMs)),
      processCpuMs(sim.pid),
      processCpuMs(tabs.pid),
      machineCpuTicks(),
      Promise.all(nodes.map((node) => processSyscalls(node.child.pid))),
      redisStats(),
    ]);
    return {
      cpuMs: cpu.reduce((sum, value) => sum + value, 0),
      simulatorCpuMs,
      tabsCpuMs,
      machine,
      syscalls: syscalls.reduce((sum, value) => sum + value, 0),
      redisCommands: redis.commands,
      redisCpuMs: redis.cpuMs,
      byCommand: redis.byCommand,
    };
  };
  // Each session first answers a short prompt: another node finds a session once its first line is stored.
  const warmUp = Array.from({ length: sessions }, () => ({ content: [{ type: "text" as const, text: "ready" }] }));
  await sim.setScenario({ turns: [...warmUp, ...scriptedTurns(round, sessions, DELTAS_PER_SESSION, DELTA_INTERVAL_MS)] });
  await sim.takeEmitted();
  // Session i is owned by node i % 2 (where it is created and its prompt runs) and followed on the other one.
  const owners = Array.from({ length: sessions }, (_, index) => nodes[index % 2]!);
  const ids = await Promise.all(owners.map((owner) => trpcCall<{ sessionId: string }>(owner, "session.create", {})));
  await Promise.all(ids.map(({ sessionId }, index) => trpcCall(owners[index]!, "session.send", { sessionId, prompt: "ready?" })));
  for (const [index, { sessionId }] of ids.entries()) {
    await waitFor(async () => {
      const snapshot = await trpcCall<{ running: boolean; messages: unknown[] }>(owners[index]!, "session.get", { sessionId }, "GET");
      return !snapshot.running && snapshot.messages.length >= 2;
    });
  }
  const expected = sessions * DELTAS_PER_SESSION;
  let streaming: Counts;
  let received: Map<string, number>;
  try {
    await tabs.open(ids.map(({ sessionId }, index) => ({ server: nodes[(index + 1) % 2]!, sessionId })));
    const before = await counts();
    const streamedFrom = process.hrtime.bigint() / 1000n;
    await Promise.all(ids.map(({ sessionId }, index) => trpcCall(owners[index]!, "session.send", { sessionId, prompt: "go" })));
    await tabs.waitUntil(
      (status) => status.received >= expected,
      180_000,
      (status) => `received ${status.received} of ${expected} deltas`,
    );
    const after = await counts();
    if (PROFILE_DIR) console.log(`# ${sessions} sessions: deltas streamed between ${streamedFrom} and ${process.hrtime.bigint() / 1000n} us (CLOCK_MONOTONIC)`);
    // The counting itself (one INFO) is one of the commands.
    streaming = {
      cpuMs: after.cpuMs - before.cpuMs,
      simulatorCpuMs: after.simulatorCpuMs - before.simulatorCpuMs,
      tabsCpuMs: after.tabsCpuMs - before.tabsCpuMs,
      machine: { busy: after.machine.busy - before.machine.busy, total: after.machine.total - before.machine.total },
      syscalls: after.syscalls - before.syscalls,
      redisCommands: after.redisCommands - before.redisCommands - 1,
      redisCpuMs: after.redisCpuMs - before.redisCpuMs,
      byCommand: new Map([...after.byCommand].map(([name, calls]) => [name, calls - (before.byCommand.get(name) ?? 0)])),
    };
    // Which commands (a script's own calls counted apart): how many deltas each round trip carries.
    const busiest = [...streaming.byCommand].filter(([, calls]) => calls > 0).sort((left, right) => right[1] - left[1]);
    console.log(`# ${sessions} sessions, Redis commands while the deltas streamed: ${busiest.map(([name, calls]) => `${name} ${calls}`).join(", ")}`);
  } finally {
    received = await tabs.take();
  }
  const emitted = await sim.takeEmitted();
  const { latencies, early, rest } = deltaLatencies(received, emitted, DELTAS_PER_SESSION);
  if (latencies.length < expected * 0.99) throw new Error(`only ${latencies.length} of ${expected} deltas were seen leaving the simulator`);
  console.log(
    `# ${sessions} sessions over 2 nodes: ${latencies.length} deltas, median ${median(latencies).toFixed(2)} ms; p99 of each session's first tenth ${percentile(early, 99).toFixed(1)} ms, of the rest ${percentile(rest, 99).toFixed(1)} ms (load average ${loadavg()[0]!.toFixed(2)})`,
  );
  console.log(`# ${pacing(emitted, DELTAS_PER_SESSION)}`);
  // When the slow deltas left the simulator: a p99 set by stalls every session shares reads differently from a slow path.
  const stalls = latencyStalls(received, emitted, { windowMs: 25, overMs: 25 });
  const worst = [...stalls].sort((left, right) => right.maxMs - left.maxMs).slice(0, 6);
  console.log(
    `# ${sessions} sessions, deltas over 25 ms by when they left the simulator (ms from the round's first delta): ${
      stalls.length === 0
        ? "none"
        : `${stalls.reduce((sum, stall) => sum + stall.deltas, 0)} in ${stalls.length} stretches; the worst ${worst
            .sort((left, right) => left.fromMs - right.fromMs)
            .map((stall) => `${stall.fromMs}-${stall.toMs} (${stall.deltas}, max ${stall.maxMs.toFixed(0)})`)
            .join(", ")}`
    }`,
  );
  return { latencies, streaming };
}

type RedisStats = { commands: number; cpuMs: number; byCommand: Map<string, number> };

/** Commands Redis has run since it started (INFO commandstats, every command counted, a script's own calls too) and its CPU time (user + system). */
async function redisStats(redis: Redis): Promise<RedisStats> {
  const stats = await redis.info("commandstats", "cpu");
  let commands = 0;
  const byCommand = new Map<string, number>();
  for (const match of stats.matchAll(/^cmdstat_([^:]+):calls=(\d+)/gm)) {
    commands += Number(match[2]);
    byCommand.set(match[1]!, Number(match[2]));
  }
  const seconds = (name: string) => Number(new RegExp(`^${name}:([\\d.]+)`, "m").exec(stats)?.[1] ?? Number.NaN);
  return { commands, cpuMs: (seconds("used_cpu_user") + seconds("used_cpu_sys")) * 1000, byCommand };
}

/** Sessions owned and followed on one node, the simulator streaming as fast as it can: stream entries per second. */
async function throughputRound(
  node: ServeProcess,
  sim: TimedSim,
  tabs: BrowserTabs,
  round: number,
): Promise<{ eventsPerSecond: number; deltasPerSecond: number; cpuPerEventMs: number }> {
  await sim.setScenario({ turns: scriptedTurns(round, THROUGHPUT_SESSIONS, THROUGHPUT_DELTAS, THROUGHPUT_DELTA_INTERVAL_MS) });
  const ids = await Promise.all(Array.from({ length: THROUGHPUT_SESSIONS }, () => trpcCall<{ sessionId: string }>(node, "session.create", {})));
  let elapsedMs: number;
  let cpu: number;
  let ended: TabsStatus;
  let delivered: Map<string, number>;
  try {
    await tabs.open(ids.map(({ sessionId }) => ({ server: node, sessionId })));
    const cpuBefore = await cpuMs(node);
    const started = performance.now();
    await Promise.all(ids.map(({ sessionId }) => trpcCall(node, "session.send", { sessionId, prompt: "go" })));
    ended = await tabs.waitUntil(
      (status) => status.ended === THROUGHPUT_SESSIONS,
      180_000,
      (status) => `${status.ended} of ${THROUGHPUT_SESSIONS} runs ended`,
    );
    elapsedMs = performance.now() - started;
    cpu = (await cpuMs(node)) - cpuBefore;
  } finally {
    delivered = await tabs.take();
  }
  await sim.takeEmitted();
  // Stream entry ids count from 1 per session: the last one a subscriber got is the number of events in the stream.
  const events = ended.lastIds;
  const deltas = THROUGHPUT_SESSIONS * THROUGHPUT_DELTAS;
  if (delivered.size < deltas) throw new Error(`the subscribers got ${delivered.size} of ${deltas} deltas`);
  console.log(`# one node, ${THROUGHPUT_SESSIONS} sessions: ${events} events (${deltas} deltas) in ${elapsedMs.toFixed(0)} ms`);
  return { eventsPerSecond: (events / elapsedMs) * 1000, deltasPerSecond: (deltas / elapsedMs) * 1000, cpuPerEventMs: cpu / events };
}

function scriptedTurns(round: number, sessions: number, deltas: number, chunkDelayMs: number) {
  return Array.from({ length: sessions }, (_, session) => ({
    content: [{ type: "text" as const, text: Array.from({ length: deltas }, (_, index) => deltaSegment(round, session * deltas + index)).join("") }],
    chunkDelayMs,
  }));
}

/** How long the node's warm-up took, from its "warmed up" log line (undefined: it ran none, as an older build). */
function warmUpMs(node: ServeProcess): number | undefined {
  for (const line of node.stderr().split("\n")) {
    if (!line.includes('"warmed up"')) continue;
    return (JSON.parse(line) as { elapsedMs: number }).elapsedMs;
  }
  return undefined;
}

function cpuMs(node: ServeProcess): Promise<number> {
  return processCpuMs(node.child.pid);
}

async function waitFor(check: () => Promise<boolean>, timeoutMs = 120_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error("timed out waiting for the warm-up answers");
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}
