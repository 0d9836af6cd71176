// Event latency through the web server: the simulator emits a text delta → the SDK parses it → the
// loop → the session hub → HTTP SSE → a subscriber. Each side in a process of its own, as in use: the model side (the
// simulator, which timestamps each delta as it hands it to its socket, events-sim.bench-child.ts), the server
// (`cairn serve --api-only`), and the SSE readers standing in for the browsers (plain node:http sockets, in a
// process of their own as a browser's are: browser-tabs.bench-child.ts). Both timestamps are CLOCK_MONOTONIC,
// which the processes share. Server CPU is counted while the deltas stream (after the sessions exist).
// With CAIRN_BENCH_EVENTS_BASELINE=<path to another build's bin/cairn.js>, every round runs on that build
// too, right before the same round on this one, and its figures are reported as events.baseline_*.
// CAIRN_BENCH_EVENTS_CPU_PROF=<dir> has each server write a CPU profile there. CAIRN_BENCH_EVENTS_ROUNDS=100,200 runs
// only those rounds (and no idle-memory round), for an A/B or a profile of one round. Counts that do not depend on the
// machine's load come with the latencies: the server's CPU, read/write system calls and garbage collection pauses
// (--trace-gc) per delta, and its longest collection pause. A comment line says when the slowest 2 % of deltas left the
// simulator (a stall shows as many in one bin).
import { type ChildProcess, spawn } from "node:child_process";
import { mkdir, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { loadavg, tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { processCpuMs, processSyscalls } from "./process-stats.ts";
import { median, percentile, report } from "./report.ts";
import { trpcCall } from "./trpc-call.ts";
import { BrowserTabs } from "./browser-tabs.ts";
import { deltaLatencies, deltaNumber, deltaSegment, pacing, TimedSim } from "./timed-sim.ts";

const DELTAS_PER_SESSION = 120;
const DELTA_INTERVAL_MS = 10; // ~100 deltas/s per session, a fast model
const CONCURRENCY = [1, 20, 100, 200];
const ROUNDS = process.env.CAIRN_BENCH_EVENTS_ROUNDS?.split(",").map(Number);
const IDLE_SESSIONS = 900;
const here = dirname(fileURLToPath(import.meta.url));

export default async function run(): Promise<void> {
  report("events.load_average_at_start", loadavg()[0]!, "load");
  const parent = await mkdtemp(join(tmpdir(), "cairn-bench-events-"));
  const sim = await TimedSim.start();
  const tabs = BrowserTabs.start();
  const servers: Array<{ prefix: string; server: ServerProcess }> = [];
  try {
    const baseline = process.env.CAIRN_BENCH_EVENTS_BASELINE;
    if (baseline) servers.push({ prefix: "events.baseline_", server: await startServerProcess(join(parent, "baseline"), sim.url, baseline, []) });
    // CAIRN_BENCH_EVENTS_NODE_FLAGS: more flags for this build's server's node (e.g. V8 heap flags, for an A/B against the baseline).
    const flags = process.env.CAIRN_BENCH_EVENTS_NODE_FLAGS?.split(" ").filter(Boolean) ?? [];
    servers.push({
      prefix: "events.",
      server: await startServerProcess(join(parent, "current"), sim.url, join(here, "..", "..", "packages", "cli", "bin", "cairn.js"), flags),
    });
    for (const sessions of ROUNDS ?? CONCURRENCY) {
      for (const { prefix, server } of servers) await measuredRound(server, sim, tabs, sessions, prefix);
    }
    // 100 sessions again on the same servers, now past their start: what a server that has been running serves
    // (its code optimised, its heap grown). The target stays on the first round, which includes the warm-up.
    for (const { prefix, server } of ROUNDS ? [] : servers) await measuredRound(server, sim, tabs, 100, `${prefix}warm_`);
    for (const { prefix, server } of ROUNDS ? [] : servers) {
      const perSession = await idleSessionMemory(server);
      report(`${prefix}rss_per_idle_session`, perSession / 1024, "KiB");
      report(`${prefix}server_rss_total`, (await rss(server.child)) / 1024 / 1024, "MiB");
    }
    report("events.load_average_at_end", loadavg()[0]!, "load");
  } finally {
    for (const { server } of servers) await server.close();
    await sim.close();
    await tabs.close();
    await rm(parent, { recursive: true, force: true });
  }
}

/** One streaming round at `sessions`, reported under `prefix`: latencies, and the server's CPU, system calls and GC. */
async function measuredRound(server: ServerProcess, sim: TimedSim, tabs: BrowserTabs, sessions: number, prefix: string): Promise<void> {
  server.gc.longestMs = 0;
  const gcBefore = { ...server.gc };
  const { latencies, serverCpuMs, serverSyscalls } = await streamingRound(server, sim, tabs, sessions);
  // The server's own CPU per delta: whether it, or a busy machine, makes the latency.
  report(`${prefix}server_cpu_per_delta_at_${sessions}`, serverCpuMs / latencies.length, "ms");
  report(`${prefix}server_syscalls_per_delta_at_${sessions}`, serverSyscalls / latencies.length, "syscalls");
  report(`${prefix}server_gc_pause_per_delta_at_${sessions}`, (server.gc.pauseMs - gcBefore.pauseMs) / latencies.length, "ms");
  report(`${prefix}server_gc_longest_pause_at_${sessions}`, server.gc.longestMs, "ms");
  console.log(
    `# ${sessions} sessions: ${server.gc.collections - gcBefore.collections} collections (${server.gc.fullCollections - gcBefore.fullCollections} full)`,
  );
  report(`${prefix}latency_p50_at_${sessions}`, percentile(latencies, 50), "ms");
  report(`${prefix}latency_p99_at_${sessions}`, percentile(latencies, 99), "ms");
  report(`${prefix}deltas_measured_at_${sessions}`, latencies.length, "deltas");
}

type ServerProcess = { url: string; token: string; child: ChildProcess; gc: GcPauses; close(): Promise<void> };

/** The server's garbage collections so far, from its --trace-gc lines (the main thread's pause of each). */
type GcPauses = { collections: number; fullCollections: number; pauseMs: number; longestMs: number };

const GC_LINE = /: (Scavenge|Mark-Compact|Mark-sweep|Minor Mark-Compact|Minor Mark-Sweep)\b[^,]*MB, ([\d.]+) \/ [\d.]+ ms/;

async function streamingRound(
  server: ServerProcess,
  sim: TimedSim,
  tabs: BrowserTabs,
  sessions: number,
): Promise<{ latencies: number[]; serverCpuMs: number; serverSyscalls: number }> {
  const round = sessions;
  const turns = Array.from({ length: sessions }, (_, session) => ({
    content: [{ type: "text" as const, text: Array.from({ length: DELTAS_PER_SESSION }, (_, index) => segment(round, session, index)).join("") }],
    chunkDelayMs: DELTA_INTERVAL_MS,
  }));
  await sim.setScenario({ turns });
  await sim.takeEmitted();
  const ids = await Promise.all(Array.from({ length: sessions }, () => trpcCall<{ sessionId: string }>(server, "session.create", {})));
  let received = new Map<string, number>();
  try {
    await tabs.open(ids.map(({ sessionId }) => ({ server, sessionId })));
    const cpuBefore = await processCpuMs(server.child.pid);
    const syscallsBefore = await processSyscalls(server.child.pid);
    await Promise.all(ids.map(({ sessionId }) => trpcCall(server, "session.send", { sessionId, prompt: "go" })));
    const expected = sessions * DELTAS_PER_SESSION;
    await tabs.waitUntil(
      (status) => status.received >= expected,
      120_000,
      (status) => `received ${status.received} of ${expected} deltas`,
    );
    const serverCpuMs = (await processCpuMs(server.child.pid)) - cpuBefore;
    const serverSyscalls = (await processSyscalls(server.child.pid)) - syscallsBefore;
    received = await tabs.take();
    const emitted = await sim.takeEmitted();
    const { latencies, early, rest } = deltaLatencies(received, emitted, DELTAS_PER_SESSION);
    describeSlowest(latencies, received, emitted);
    console.log(`# ${pacing(emitted, DELTAS_PER_SESSION)}`);
    if (latencies.length < expected * 0.99) throw new Error(`only ${latencies.length} of ${expected} deltas were seen leaving the simulator`);
    console.log(
      `# ${sessions} sessions: ${latencies.length} deltas, median ${median(latencies).toFixed(2)} ms; p99 of each session's first tenth ${percentile(early, 99).toFixed(1)} ms, of the rest ${percentile(rest, 99).toFixed(1)} ms`,
    );
    return { latencies, serverCpuMs, serverSyscalls };
  } finally {
    // Closes the tabs when the round failed before taking what they received.
    await tabs.take();
  }
}

/** Where the slowest 2 % of a round's deltas are: when they left the simulator (100 ms bins from the round's first delta; a stall shows as many in one bin) and their place in their session. */
function describeSlowest(latencies: number[], received: ReadonlyMap<string, number>, emitted: ReadonlyMap<string, number>): void {
  const threshold = percentile(latencies, 98);
  const start = Math.min(...emitted.values());
  const byTime = new Map<number, number>();
  const byIndex = new Map<number, number>();
  for (const [id, at] of received) {
    const sent = emitted.get(id);
    if (sent === undefined || at - sent < threshold) continue;
    const bin = Math.floor((sent - start) / 100) * 100;
    byTime.set(bin, (byTime.get(bin) ?? 0) + 1);
    const index = Math.floor((deltaNumber(id) % DELTAS_PER_SESSION) / 10) * 10;
    byIndex.set(index, (byIndex.get(index) ?? 0) + 1);
  }
  const last = Math.max(...emitted.values()) - start;
  console.log(
    `# start ${start.toFixed(1)} (CLOCK_MONOTONIC ms); late (>= p98 ${threshold.toFixed(1)} ms), emission spread ${last.toFixed(0)} ms; by emission time: ${[
      ...byTime,
    ]
      .sort((a, b) => a[0] - b[0])
      .map(([k, v]) => `${k}:${v}`)
      .join(" ")}`,
  );
  console.log(
    `# late by delta index: ${[...byIndex]
      .sort((a, b) => a[0] - b[0])
      .map(([k, v]) => `${k}:${v}`)
      .join(" ")}`,
  );
}

function segment(round: number, session: number, index: number): string {
  return deltaSegment(round, session * DELTAS_PER_SESSION + index);
}

/**
 * Bytes of RSS per idle session: the least-squares slope of RSS over the sessions created, sampled after every
 * batch of 50 (900 in all), so the heap's growth in steps and a collection at any one moment average out.
 */
async function idleSessionMemory(server: ServerProcess): Promise<number> {
  const BATCH = 50;
  const createBatch = async () => {
    const created = await Promise.all(Array.from({ length: BATCH }, () => trpcCall<{ sessionId: string }>(server, "session.create", {})));
    // The page reads each session once it opens it.
    await Promise.all(created.map(({ sessionId }) => trpcCall(server, "session.get", { sessionId }, "GET")));
  };
  await createBatch(); // warm-up: lazily loaded code and caches
  const points: Array<[number, number]> = [[0, await rss(server.child)]];
  for (let created = BATCH; created <= IDLE_SESSIONS; created += BATCH) {
    await createBatch();
    points.push([created, await rss(server.child)]);
  }
  const meanX = points.reduce((sum, [x]) => sum + x, 0) / points.length;
  const meanY = points.reduce((sum, [, y]) => sum + y, 0) / points.length;
  const covariance = points.reduce((sum, [x, y]) => sum + (x - meanX) * (y - meanY), 0);
  const variance = points.reduce((sum, [x]) => sum + (x - meanX) ** 2, 0);
  return covariance / variance;
}

async function rss(child: ChildProcess): Promise<number> {
  const status = await readFile(`/proc/${child.pid}/status`, "utf8");
  const kib = Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? Number.NaN);
  return kib * 1024;
}

async function startServerProcess(parent: string, modelUrl: string, cairnBin: string, flags: string[]): Promise<ServerProcess> {
  const workspace = join(parent, "ws");
  const cairnHome = join(parent, "home");
  await mkdir(workspace, { recursive: true });
  await mkdir(cairnHome, { recursive: true });
  await writeFile(join(workspace, "README.md"), "# bench\n");
  const token = "bench-token-".padEnd(43, "x");
  // CAIRN_BENCH_EVENTS_CPU_PROF=<dir>: each server writes a CPU profile there when it exits.
  const profileDir = process.env.CAIRN_BENCH_EVENTS_CPU_PROF;
  const profile = profileDir ? ["--cpu-prof", `--cpu-prof-dir=${profileDir}`] : [];
  const child = spawn(process.execPath, [...profile, ...flags, "--trace-gc", cairnBin, "serve", "--api-only", "--port", "0", "--workspace", workspace], {
    env: { ...process.env, CAIRN_HOME: cairnHome, ANTHROPIC_BASE_URL: modelUrl, ANTHROPIC_API_KEY: "bench", CAIRN_TOKEN: token, CAIRN_MODEL: "bench-model" },
    stdio: ["ignore", "pipe", "inherit"],
  });
  const gc: GcPauses = { collections: 0, fullCollections: 0, pauseMs: 0, longestMs: 0 };
  const url = await new Promise<string>((resolve, reject) => {
    let buffer = "";
    child.stdout!.on("data", (chunk: Buffer) => {
      buffer += chunk.toString();
      const lines = buffer.split("\n");
      buffer = lines.pop()!;
      for (const line of lines) {
        // The loopback address: Node's resolver, unlike a browser's, may not know *.localhost names.
        const match = /also at (http:\/\/127\.0\.0\.1:\d+)\//.exec(line);
        if (match) resolve(match[1]!);
        const collection = GC_LINE.exec(line);
        if (!collection) continue;
        const pause = Number(collection[2]);
        gc.collections += 1;
        if (!collection[1]!.startsWith("Scavenge") && !collection[1]!.startsWith("Minor")) gc.fullCollections += 1;
        gc.pauseMs += pause;
        gc.longestMs = Math.max(gc.longestMs, pause);
      }
    });
    child.once("exit", (code) => reject(new Error(`cairn serve exited early with code ${code}`)));
  });
  return {
    url,
    token,
    child,
    gc,
    close: () =>
      new Promise((resolve) => {
        if (child.exitCode !== null) return resolve();
        child.once("exit", () => resolve());
        child.kill("SIGTERM");
      }),
  };
}
