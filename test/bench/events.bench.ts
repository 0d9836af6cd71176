// Event latency through the web server: the simulator emits a text delta → the SDK parses it → the
// loop → the session hub → HTTP SSE → a subscriber. The server runs as `cairn serve --api-only` in its
// own process; the simulator, a TCP tap in front of it (which timestamps each delta as it leaves the
// simulator) and the SSE subscribers run here, so both timestamps come from one clock.
import { spawn, type ChildProcess } from "node:child_process";
import { mkdir, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { createServer, Socket, type Server } from "node:net";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { startModelSim, type ModelSim } from "@cairn/model-sim";
import { median, percentile, report } from "./report.ts";

const DELTAS_PER_SESSION = 120;
const DELTA_INTERVAL_MS = 10; // ~100 deltas/s per session, a fast model
const CONCURRENCY = [1, 20, 100, 200];
const IDLE_SESSIONS = 300;
const ID = /S\d{3}D\d{5}/g;

export default async function run(): Promise<void> {
  const parent = await mkdtemp(join(tmpdir(), "cairn-bench-events-"));
  const sim = await startModelSim({ scenario: { turns: [] }, textChunkSize: 16 });
  const tap = await DeltaTap.start(sim);
  const server = await startServerProcess(parent, tap.url);
  try {
    for (const sessions of CONCURRENCY) {
      const cpuBefore = await cpuMs(server.child);
      const latencies = await streamingRound(server, sim, tap, sessions);
      // The server's own CPU per delta: whether it, or a busy machine, makes the latency.
      const serverCpu = (await cpuMs(server.child)) - cpuBefore;
      report(`events.server_cpu_per_delta_at_${sessions}`, serverCpu / latencies.length, "ms");
      report(`events.latency_p50_at_${sessions}`, percentile(latencies, 50), "ms");
      report(`events.latency_p99_at_${sessions}`, percentile(latencies, 99), "ms");
      report(`events.deltas_measured_at_${sessions}`, latencies.length, "deltas");
    }
    const perSession = await idleSessionMemory(server);
    report("events.rss_per_idle_session", perSession / 1024, "KiB");
    report("events.server_rss_total", (await rss(server.child)) / 1024 / 1024, "MiB");
  } finally {
    await server.close();
    await tap.close();
    await sim.close();
    await rm(parent, { recursive: true, force: true });
  }
}

type ServerProcess = { url: string; token: string; child: ChildProcess; close(): Promise<void> };

async function streamingRound(server: ServerProcess, sim: ModelSim, tap: DeltaTap, sessions: number): Promise<number[]> {
  const round = sessions;
  const turns = Array.from({ length: sessions }, (_, session) => ({
    content: [{ type: "text" as const, text: Array.from({ length: DELTAS_PER_SESSION }, (_, index) => segment(round, session, index)).join("") }],
    chunkDelayMs: DELTA_INTERVAL_MS,
  }));
  sim.setScenario({ turns });
  tap.emitted.clear();
  const ids = await Promise.all(Array.from({ length: sessions }, () => call<{ sessionId: string }>(server, "session.create", {})));
  const received = new Map<string, number>();
  const controller = new AbortController();
  const readers = ids.map(({ sessionId }) => subscribe(server, sessionId, controller.signal, received));
  await Promise.all(readers.map((reader) => reader.connected));
  await Promise.all(ids.map(({ sessionId }) => call(server, "session.send", { sessionId, prompt: "go" })));
  const expected = sessions * DELTAS_PER_SESSION;
  await waitUntil(
    () => received.size >= expected,
    120_000,
    () => `received ${received.size} of ${expected} deltas`,
  );
  controller.abort();
  await Promise.allSettled(readers.map((reader) => reader.done));
  const latencies: number[] = [];
  for (const [id, at] of received) {
    const emitted = tap.emitted.get(id);
    if (emitted !== undefined) latencies.push(at - emitted);
  }
  if (latencies.length < expected * 0.99) throw new Error(`only ${latencies.length} of ${expected} deltas were seen leaving the simulator`);
  console.log(`# ${sessions} sessions: ${latencies.length} deltas, median ${median(latencies).toFixed(2)} ms`);
  return latencies;
}

function segment(round: number, session: number, index: number): string {
  // 16 characters = one delta: the id plus padding.
  return `S${String(round % 1000).padStart(3, "0")}D${String(session * DELTAS_PER_SESSION + index).padStart(5, "0")}------`;
}

async function idleSessionMemory(server: ServerProcess): Promise<number> {
  const create = async (count: number) => {
    for (let batch = 0; batch < count; batch += 50) {
      const created = await Promise.all(Array.from({ length: Math.min(50, count - batch) }, () => call<{ sessionId: string }>(server, "session.create", {})));
      // The page reads each session once it opens it.
      await Promise.all(created.map(({ sessionId }) => call(server, "session.get", { sessionId }, "GET")));
    }
  };
  await create(50); // warm-up: lazily loaded code and caches
  const samples: number[] = [];
  for (let round = 0; round < 3; round++) {
    const before = await rss(server.child);
    await create(IDLE_SESSIONS);
    samples.push((await rss(server.child)) - before);
  }
  return median(samples) / IDLE_SESSIONS;
}

/** User + system CPU time of a process, from /proc (clock ticks of 10 ms). */
async function cpuMs(child: ChildProcess): Promise<number> {
  const fields = (await readFile(`/proc/${child.pid}/stat`, "utf8")).split(") ")[1]!.split(" ");
  return (Number(fields[11]) + Number(fields[12])) * 10;
}

async function rss(child: ChildProcess): Promise<number> {
  const status = await readFile(`/proc/${child.pid}/status`, "utf8");
  const kib = Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? Number.NaN);
  return kib * 1024;
}

async function call<T = unknown>(server: ServerProcess, path: string, input: unknown, method: "GET" | "POST" = "POST"): Promise<T> {
  const headers = { authorization: `Bearer ${server.token}`, "content-type": "application/json" };
  const response =
    method === "GET"
      ? await fetch(`${server.url}/api/trpc/${path}?input=${encodeURIComponent(JSON.stringify(input))}`, { headers })
      : await fetch(`${server.url}/api/trpc/${path}`, { method, headers, body: JSON.stringify(input) });
  const body = (await response.json()) as { result?: { data: T }; error?: unknown };
  if (!response.ok || !body.result) throw new Error(`${path} failed: ${JSON.stringify(body.error)}`);
  return body.result.data;
}

/** Reads session.events and records, per delta id, when it first arrived. */
function subscribe(server: ServerProcess, sessionId: string, signal: AbortSignal, received: Map<string, number>) {
  let markConnected: () => void = () => undefined;
  const connected = new Promise<void>((resolve) => (markConnected = resolve));
  const done = (async () => {
    const input = encodeURIComponent(JSON.stringify({ sessionId }));
    const response = await fetch(`${server.url}/api/trpc/session.events?input=${input}`, {
      headers: { authorization: `Bearer ${server.token}`, accept: "text/event-stream" },
      signal,
    });
    if (!response.body) throw new Error("no SSE body");
    const decoder = new TextDecoder();
    let buffer = "";
    try {
      for await (const chunk of response.body) {
        const at = performance.now();
        buffer += decoder.decode(chunk as Uint8Array, { stream: true });
        let end: number;
        while ((end = buffer.indexOf("\n\n")) >= 0) {
          const frame = buffer.slice(0, end);
          buffer = buffer.slice(end + 2);
          if (frame.startsWith("event: connected") || frame.includes("\nevent: connected")) markConnected();
          if (!frame.includes("text-delta")) continue;
          for (const id of frame.match(ID) ?? []) if (!received.has(id)) received.set(id, at);
        }
      }
    } catch (error) {
      if (!signal.aborted) throw error;
    }
  })();
  return { connected, done };
}

/** A TCP pass-through in front of the simulator that timestamps each delta id as it is forwarded. */
class DeltaTap {
  readonly emitted = new Map<string, number>();
  private readonly server: Server;
  private readonly sockets = new Set<Socket>();
  url = "";

  private constructor(target: URL) {
    this.server = createServer((client) => {
      const upstream = new Socket();
      upstream.connect(Number(target.port), target.hostname);
      this.sockets.add(client).add(upstream);
      client.pipe(upstream);
      let tail = "";
      upstream.on("data", (chunk: Buffer) => {
        const at = performance.now();
        client.write(chunk);
        const text = tail + chunk.toString("latin1");
        for (const id of text.match(ID) ?? []) if (!this.emitted.has(id)) this.emitted.set(id, at);
        tail = text.slice(-16);
      });
      const drop = () => {
        client.destroy();
        upstream.destroy();
        this.sockets.delete(client);
        this.sockets.delete(upstream);
      };
      upstream
        .on("end", () => client.end())
        .on("error", drop)
        .on("close", drop);
      client.on("error", drop).on("close", drop);
    });
  }

  static async start(sim: ModelSim): Promise<DeltaTap> {
    const tap = new DeltaTap(new URL(sim.url));
    await new Promise<void>((resolve) => tap.server.listen(0, "127.0.0.1", resolve));
    tap.url = `http://127.0.0.1:${(tap.server.address() as { port: number }).port}`;
    return tap;
  }

  async close(): Promise<void> {
    for (const socket of this.sockets) socket.destroy();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}

async function startServerProcess(parent: string, modelUrl: string): Promise<ServerProcess> {
  const workspace = join(parent, "ws");
  const cairnHome = join(parent, "home");
  await mkdir(workspace, { recursive: true });
  await mkdir(cairnHome, { recursive: true });
  await writeFile(join(workspace, "README.md"), "# bench\n");
  const token = "bench-token-".padEnd(43, "x");
  const cairnBin = join(dirname(fileURLToPath(import.meta.url)), "..", "..", "packages", "cli", "bin", "cairn.js");
  const child = spawn(process.execPath, [cairnBin, "serve", "--api-only", "--port", "0", "--workspace", workspace], {
    env: { ...process.env, CAIRN_HOME: cairnHome, ANTHROPIC_BASE_URL: modelUrl, ANTHROPIC_API_KEY: "bench", CAIRN_TOKEN: token, CAIRN_MODEL: "bench-model" },
    stdio: ["ignore", "pipe", "inherit"],
  });
  const url = await new Promise<string>((resolve, reject) => {
    let buffer = "";
    child.stdout!.on("data", (chunk: Buffer) => {
      buffer += chunk.toString();
      // The loopback address: Node's resolver, unlike a browser's, may not know *.localhost names.
      const match = /also at (http:\/\/127\.0\.0\.1:\d+)\//.exec(buffer);
      if (match) resolve(match[1]!);
    });
    child.once("exit", (code) => reject(new Error(`cairn serve exited early with code ${code}`)));
  });
  return {
    url,
    token,
    child,
    close: () =>
      new Promise((resolve) => {
        if (child.exitCode !== null) return resolve();
        child.once("exit", () => resolve());
        child.kill("SIGTERM");
      }),
  };
}

async function waitUntil(condition: () => boolean, timeoutMs: number, describe: () => string): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`timed out: ${describe()}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}
