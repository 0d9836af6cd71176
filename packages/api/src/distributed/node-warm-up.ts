import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { Agent, request } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { EventBus } from "../hub/event-bus.ts";
import { trpcHttpCall } from "../server/loopback-trpc.ts";
import type { StartServerOptions } from "../server/server-options.ts";

/** How much live traffic a warm-up runs: rounds of `sessions` turns streaming `deltas` text deltas each. */
export type WarmUpSize = { rounds: number; sessions: number; deltas: number };

export const DEFAULT_WARM_UP: WarmUpSize = { rounds: 3, sessions: 20, deltas: 120 };

/** A scratch event bus on the cluster's Redis under a key prefix of its own, and how to remove its streams afterwards. */
export type ScratchBus = { bus: EventBus; close(): Promise<void> };

type ScratchServer = { url: string; token: string; close(): Promise<void> };

export type WarmUpOptions = {
  size: WarmUpSize;
  /** Starts a server of the same code (startServer), embedded, on a scratch workspace. */
  startServer: (options: Omit<StartServerOptions, "version">) => Promise<ScratchServer>;
  /** Two scratch buses on the same Redis streams (one per scratch server), or none (the in-memory bus). */
  scratchBuses: (() => Promise<[ScratchBus, ScratchBus]>) | undefined;
  /** Bounds the whole warm-up (default 60 s): past it the node starts anyway. */
  timeoutMs?: number;
  /** Where its temporary folder goes (default the system's). */
  tmpRoot?: string;
};

const DEFAULT_TIMEOUT_MS = 60_000;
/** The scratch model's text chunks: one delta each. */
const CHUNK = 16;
/** Between a turn's deltas: 20 sessions then stream about 4,000 deltas a second, a busy node's pace. */
const CHUNK_DELAY_MS = 5;
const END_MARK = "~warm-up-ends~~~";

/**
 * Runs live sessions through this process's own code before the node reports ready: a fresh node's first sessions
 * otherwise pay for V8 compiling and optimising the whole path (the model stream's parsing, the loop, the hub, the
 * Redis appends and reads, the SSE frames) while they stream: at 100 sessions, about a third more CPU per delta.
 * Two scratch servers in this process (embedded, on a temporary workspace and homes, their own in-process model
 * simulator, their own worker processes) share scratch Redis streams: sessions run on the first and are followed over
 * HTTP on the second, as two nodes serve a session and its tab. Nothing of it is visible to the cluster: no PostgreSQL
 * row, no lease, streams under a prefix of their own, deleted at the end, as are the temporary folders; no hook or
 * MCP server of the user's runs, and the configured model is not called.
 */
export async function warmUpNode(options: WarmUpOptions): Promise<{ deltas: number; elapsedMs: number }> {
  const started = performance.now();
  const timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  const { startModelSim } = await import("@cairn/model-sim");
  const sim = await startModelSim({ scenario: { turns: [] }, textChunkSize: CHUNK });
  const parent = await mkdtemp(join(options.tmpRoot ?? tmpdir(), "cairn-warm-up-"));
  const agent = new Agent({ keepAlive: true, maxSockets: 64 });
  const servers: ScratchServer[] = [];
  let buses: [ScratchBus, ScratchBus] | undefined;
  let timer: ReturnType<typeof setTimeout> | undefined;
  // Set once the warm-up ends: a server or bus whose start finishes after that is closed at once, not left running.
  let finished = false;
  const kept = async <Closable extends { close(): Promise<void> }>(closable: Closable): Promise<Closable> => {
    if (!finished) return closable;
    await closable.close().catch(() => undefined);
    throw new Error("the warm-up had already ended");
  };
  const run = async () => {
    if (options.scratchBuses) {
      const [first, second] = await options.scratchBuses();
      buses = await Promise.all([kept(first), kept(second)]);
    }
    const workspace = join(parent, "workspace");
    await mkdir(workspace);
    await writeFile(join(workspace, "README.md"), "# warm-up\n");
    await mkdir(join(parent, "home"));
    // A home of its own too: none of the user's memory files, settings, hooks or MCP servers, nor the managed ones.
    const home = { cairnHome: join(parent, "cairn-home"), homeDir: join(parent, "home"), managedSettingsPath: join(parent, "no-managed-settings.json") };
    const scratch = { ...home, workspace, host: "127.0.0.1", port: 0, webDir: null, checkpoints: false, apiKey: "cairn-warm-up", baseURL: sim.url };
    for (const bus of buses ?? [undefined, undefined]) {
      servers.push(await kept(await options.startServer({ ...scratch, ...(bus ? { bus: bus.bus } : {}) })));
    }
    const [owner, follower] = servers as [ScratchServer, ScratchServer];
    const { rounds, sessions, deltas } = options.size;
    for (let round = 0; round < rounds; round++) {
      // Each delta its own chunk (as a model streams), the last one the mark the followers wait for.
      const text = `${Array.from({ length: deltas - 1 }, (_, index) => `r${round}d${index}`.padEnd(CHUNK, "-")).join("")}${END_MARK}`;
      sim.setScenario({
        turns: [
          ...Array.from({ length: sessions }, () => ({ content: [{ type: "text" as const, text: "ready" }] })),
          ...Array.from({ length: sessions }, () => ({ content: [{ type: "text" as const, text }], chunkDelayMs: CHUNK_DELAY_MS })),
        ],
      });
      const ids = await Promise.all(Array.from({ length: sessions }, () => call<{ sessionId: string }>(agent, owner, "session.create", {})));
      // A first short turn stores each session, so the other server finds it.
      await Promise.all(ids.map(({ sessionId }) => call(agent, owner, "session.send", { sessionId, prompt: "ready?" })));
      for (const { sessionId } of ids) await untilIdle(agent, owner, sessionId);
      const streams = ids.map(({ sessionId }) => follow(agent, follower, sessionId));
      await Promise.all(streams.map((stream) => stream.opened));
      await Promise.all(ids.map(({ sessionId }) => call(agent, owner, "session.send", { sessionId, prompt: "go" })));
      await Promise.all(streams.map((stream) => stream.ended));
    }
    return rounds * sessions * deltas;
  };
  try {
    const running = run();
    // Past the time limit the run is abandoned (its calls fail as the servers close): nothing may be left unhandled.
    running.catch(() => undefined);
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error(`the warm-up did not finish within ${timeoutMs} ms`)), timeoutMs);
    });
    const deltas = await Promise.race([running, timeout]);
    return { deltas, elapsedMs: performance.now() - started };
  } finally {
    finished = true;
    clearTimeout(timer);
    agent.destroy();
    for (const server of servers) await server.close().catch(() => undefined);
    for (const bus of buses ?? []) await bus.close().catch(() => undefined);
    await sim.close();
    await rm(parent, { recursive: true, force: true });
  }
}

function call<T = unknown>(agent: Agent, server: ScratchServer, path: string, input: unknown, method: "GET" | "POST" = "POST"): Promise<T> {
  return trpcHttpCall<T>(server, path, input, { method, agent });
}

async function untilIdle(agent: Agent, server: ScratchServer, sessionId: string): Promise<void> {
  for (;;) {
    const snapshot = await call<{ running: boolean; messages: unknown[] }>(agent, server, "session.get", { sessionId }, "GET");
    if (!snapshot.running && snapshot.messages.length >= 2) return;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/** A tab following a session's live events over SSE until the turn's last delta arrives. */
function follow(agent: Agent, server: ScratchServer, sessionId: string): { opened: Promise<void>; ended: Promise<void> } {
  let opened!: () => void;
  let failed!: (error: Error) => void;
  const openedPromise = new Promise<void>((resolve, reject) => {
    opened = resolve;
    failed = reject;
  });
  const ended = new Promise<void>((resolve, reject) => {
    const input = encodeURIComponent(JSON.stringify({ sessionId }));
    const outgoing = request(
      `${server.url}/api/trpc/session.events?input=${input}`,
      { agent, headers: { authorization: `Bearer ${server.token}` } },
      (response) => {
        opened();
        let tail = "";
        response.setEncoding("utf8");
        response.on("data", (chunk: string) => {
          tail = (tail + chunk).slice(-4 * CHUNK);
          if (tail.includes(END_MARK)) {
            response.destroy();
            resolve();
          }
        });
        response.on("error", () => undefined);
        response.on("close", () => reject(new Error(`the events of ${sessionId} ended early`)));
      },
    );
    // A request that fails before its response fails both: nothing waits for the time limit.
    outgoing.on("error", (error) => {
      failed(error);
      reject(error);
    });
    outgoing.end();
  });
  openedPromise.catch(() => undefined);
  ended.catch(() => undefined);
  return { opened: openedPromise, ended };
}
