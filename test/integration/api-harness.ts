import { mkdir, mkdtemp, realpath, rm, writeFile } from "node:fs/promises";
import { request } from "node:http";
import { createServer, Socket, type Server } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createTRPCClient, httpLink } from "@trpc/client";
import { vi } from "vitest";
import { MemoryEventBus, startServer, type AppRouter, type CairnServer, type SessionEvent, type ShareOptions } from "@cairn/api";
import { startModelSim, type ModelSim, type Scenario } from "@cairn/model-sim";
import { localWorkerScript } from "../support/cli.ts";

/** Helpers for the api-*.test.ts integration tests: a real server over HTTP, the model simulator, SSE read with fetch. */

export type ApiFixture = {
  server: CairnServer;
  sim: ModelSim;
  root: string;
  parent: string;
  cairnHome: string;
  client: ReturnType<typeof apiClient>;
  [Symbol.asyncDispose](): Promise<void>;
};

export async function startApiFixture(
  options: {
    scenario?: Scenario;
    files?: Record<string, string>;
    chunkDelayMs?: number;
    checkpoints?: boolean;
    settings?: object;
    ringSize?: number;
    idleTimeoutMs?: number;
    browserSessionTtlMs?: number;
    allowedHosts?: string[];
    share?: ShareOptions;
    /** `--mcp-config` entries (objects, sent as JSON). */
    mcpConfig?: object[];
  } = {},
): Promise<ApiFixture> {
  const parent = await realpath(await mkdtemp(join(tmpdir(), "cairn-api-")));
  const root = join(parent, "ws");
  const cairnHome = join(parent, "home");
  // The user's home of the run (~/.claude memory and skills): empty, never the machine's.
  const homeDir = join(parent, "user-home");
  await mkdir(root);
  await mkdir(cairnHome);
  await mkdir(homeDir);
  for (const [name, content] of Object.entries(options.files ?? { "README.md": "# test\n" })) {
    await mkdir(join(root, name, ".."), { recursive: true });
    await writeFile(join(root, name), content);
  }
  if (options.settings) {
    await mkdir(join(root, ".claude"), { recursive: true });
    await writeFile(join(root, ".claude", "settings.json"), JSON.stringify(options.settings));
  }
  const sim = await startModelSim({
    scenario: options.scenario ?? { turns: [] },
    ...(options.chunkDelayMs !== undefined ? { chunkDelayMs: options.chunkDelayMs } : {}),
  });
  let server: CairnServer;
  try {
    server = await startServer({
      workerScript: localWorkerScript,
      workspace: root,
      cairnHome,
      homeDir,
      version: "0.0.0-test",
      apiKey: "test",
      baseURL: sim.url,
      model: "sim-model",
      port: 0,
      webDir: null,
      checkpoints: options.checkpoints ?? false,
      managedSettingsPath: join(parent, "no-managed-settings.json"),
      maxRetries: 1,
      promptCaching: false,
      ...(options.idleTimeoutMs !== undefined ? { idleTimeoutMs: options.idleTimeoutMs } : {}),
      ...(options.browserSessionTtlMs !== undefined ? { browserSessionTtlMs: options.browserSessionTtlMs } : {}),
      ...(options.allowedHosts ? { allowedHosts: options.allowedHosts } : {}),
      ...(options.ringSize ? { bus: new MemoryEventBus({ ringSize: options.ringSize }) } : {}),
      ...(options.share ? { share: options.share } : {}),
      ...(options.mcpConfig ? { mcpConfig: options.mcpConfig.map((config) => JSON.stringify(config)) } : {}),
    });
  } catch (error) {
    await sim.close();
    throw error;
  }
  return {
    server,
    sim,
    root,
    parent,
    cairnHome,
    client: apiClient(server.url, server.token),
    async [Symbol.asyncDispose]() {
      await server.close();
      await sim.close();
      await rm(parent, { recursive: true, force: true });
    },
  };
}

export function apiClient(url: string, token: string) {
  return createTRPCClient<AppRouter>({ links: [httpLink({ url: `${url}/api/trpc`, headers: { authorization: `Bearer ${token}` } })] });
}

export type SseMessage = { event: string; id: string | undefined; data: string };

/** One SSE response, read with fetch and parsed frame by frame (Node 20 has no EventSource). */
export async function* readSse(url: string, init: { headers: Record<string, string>; signal: AbortSignal }): AsyncGenerator<SseMessage> {
  const response = await fetch(url, { headers: { accept: "text/event-stream", ...init.headers }, signal: init.signal });
  if (!response.ok || !response.body) throw new Error(`SSE request failed: ${response.status} ${await response.text()}`);
  const decoder = new TextDecoder();
  let buffer = "";
  for await (const chunk of response.body) {
    buffer += decoder.decode(chunk as Uint8Array, { stream: true });
    let end: number;
    while ((end = buffer.indexOf("\n\n")) >= 0) {
      const frame = buffer.slice(0, end);
      buffer = buffer.slice(end + 2);
      let event = "message";
      let id: string | undefined;
      const data: string[] = [];
      for (const line of frame.split("\n")) {
        if (line.startsWith("event:")) event = line.slice(6).trim();
        else if (line.startsWith("id:")) id = line.slice(3).trim();
        else if (line.startsWith("data:")) data.push(line.slice(5).replace(/^ /, ""));
      }
      yield { event, id, data: data.join("\n") };
    }
  }
}

export type Received = { seq: number; event: SessionEvent };

/**
 * A session.events subscriber that behaves like EventSource: on a dropped connection it reconnects
 * with `Last-Event-ID` set to the last id it saw, until stopped.
 */
export class EventsSubscriber {
  readonly received: Received[] = [];
  connections = 0;
  errors: string[] = [];
  private readonly controller = new AbortController();
  private lastEventId: string | undefined;
  private readonly done: Promise<void>;

  constructor(baseUrl: string, token: string, sessionId: string, options: { lastEventId?: string } = {}) {
    this.lastEventId = options.lastEventId;
    this.done = this.loop(baseUrl, token, sessionId);
  }

  events(): SessionEvent[] {
    return this.received.map((item) => item.event);
  }

  async stop(): Promise<void> {
    this.controller.abort();
    await this.done;
  }

  private async loop(baseUrl: string, token: string, sessionId: string): Promise<void> {
    const input = encodeURIComponent(JSON.stringify({ sessionId }));
    while (!this.controller.signal.aborted) {
      try {
        this.connections++;
        const headers: Record<string, string> = { authorization: `Bearer ${token}` };
        if (this.lastEventId !== undefined) headers["last-event-id"] = this.lastEventId;
        for await (const message of readSse(`${baseUrl}/api/trpc/session.events?input=${input}`, { headers, signal: this.controller.signal })) {
          if (message.event === "serialized-error") this.errors.push(message.data);
          if (message.event !== "message" || message.id === undefined) continue;
          this.lastEventId = message.id;
          this.received.push({ seq: Number(message.id), event: JSON.parse(message.data) as SessionEvent });
        }
      } catch (error) {
        if (this.controller.signal.aborted) return;
        if (!(error instanceof TypeError) && !String((error as Error).message).match(/terminated|socket|ECONNRESET|other side closed/i)) {
          this.errors.push(String(error));
        }
      }
      // EventSource waits before reconnecting too; the proxy is immediately ready again.
      await new Promise((resolve) => setImmediate(resolve));
    }
  }
}

/** A TCP proxy in front of the server whose open connections a test can cut (P16). */
export class CuttingProxy {
  readonly sockets = new Set<Socket>();
  private readonly server: Server;
  port = 0;

  private constructor(targetPort: number) {
    this.server = createServer((client) => {
      const upstream = new Socket();
      upstream.connect(targetPort, "127.0.0.1");
      this.sockets.add(client);
      this.sockets.add(upstream);
      client.pipe(upstream).pipe(client);
      const drop = () => {
        client.destroy();
        upstream.destroy();
        this.sockets.delete(client);
        this.sockets.delete(upstream);
      };
      client.on("error", drop).on("close", drop);
      upstream.on("error", drop).on("close", drop);
    });
  }

  static async start(targetPort: number): Promise<CuttingProxy> {
    const proxy = new CuttingProxy(targetPort);
    await new Promise<void>((resolve) => proxy.server.listen(0, "127.0.0.1", resolve));
    proxy.port = (proxy.server.address() as { port: number }).port;
    return proxy;
  }

  get url(): string {
    return `http://127.0.0.1:${this.port}`;
  }

  /** Destroys every open connection, as a network drop would. */
  cut(): number {
    const count = this.sockets.size;
    for (const socket of this.sockets) socket.destroy();
    this.sockets.clear();
    return count;
  }

  async close(): Promise<void> {
    this.cut();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}

/** The text of the assistant's deltas, in order. */
export function streamedText(events: readonly SessionEvent[]): string {
  return events.flatMap((event) => (event.type === "text-delta" ? [event.text] : [])).join("");
}

/**
 * Every published event after `afterSeq` reached the subscriber exactly once: seqs strictly increase,
 * each non-delta event is the published one at its seq, and a delta stands for the run of deltas
 * published since the previous received seq (a lagging subscriber gets adjacent deltas joined).
 */
export function assertLossless(received: readonly Received[], published: readonly Received[], afterSeq = 0): void {
  const bySeq = new Map(published.map((item) => [item.seq, item.event]));
  let previous = afterSeq;
  for (const item of received) {
    if (item.seq <= previous) throw new Error(`seq ${item.seq} after ${previous}: duplicate or out of order`);
    const covered: SessionEvent[] = [];
    for (let seq = previous + 1; seq <= item.seq; seq++) {
      const event = bySeq.get(seq);
      if (!event) throw new Error(`seq ${seq} was not published (or is no longer retained)`);
      covered.push(event);
    }
    const event = item.event;
    if (covered.length === 1) {
      if (JSON.stringify(covered[0]) !== JSON.stringify(event)) throw new Error(`seq ${item.seq} differs from what was published`);
    } else {
      const joined = covered.map((each) => deltaText(each)).join("");
      if (covered.some((each) => each.type !== event.type) || deltaText(event) !== joined)
        throw new Error(`seq ${previous + 1}..${item.seq} was not delivered as one joined delta`);
    }
    previous = item.seq;
  }
  const last = published.at(-1)?.seq ?? afterSeq;
  if (previous !== last) throw new Error(`the subscriber stopped at seq ${previous}, the session is at ${last}`);
}

function deltaText(event: SessionEvent): string | undefined {
  if (event.type === "text-delta") return event.text;
  if (event.type === "thinking-delta") return event.thinking;
  if (event.type === "tool-input-delta") return event.partialJson;
  return undefined;
}

/** What the bus still holds for a session after `afterSeq`. */
export function publishedEvents(server: CairnServer, sessionId: string, afterSeq = 0): Received[] {
  const replay = server.hub.bus.replay(sessionId, afterSeq);
  if (replay instanceof Promise) throw new Error("publishedEvents reads the in-memory bus of an embedded server");
  return replay.events.map((item) => ({ seq: item.seq, event: item.event }));
}

/** vi.waitFor with room for a busy machine (the default second is too short when the model streams slowly). */
export function eventually<T>(check: () => T | Promise<T>, timeout = 15_000): Promise<T> {
  return vi.waitFor(check, { timeout, interval: 20 });
}

export type RawResponse = { status: number; headers: Record<string, string | string[] | undefined>; body: string };

/** A raw HTTP request (no redirects followed, any method, any headers). */
export function send(url: string, options: { method?: string; headers?: Record<string, string>; body?: string } = {}): Promise<RawResponse> {
  return new Promise((resolve, reject) => {
    // Node sends a DELETE body without a length unless told: give one, or the bytes read as the next request.
    const length = options.body !== undefined ? { "content-length": String(Buffer.byteLength(options.body)) } : {};
    const outgoing = request(url, { method: options.method ?? "GET", headers: { ...length, ...options.headers } }, (response) => {
      let body = "";
      response.setEncoding("utf8");
      response.on("data", (chunk: string) => (body += chunk));
      response.on("end", () => resolve({ status: response.statusCode ?? 0, headers: response.headers, body }));
    });
    outgoing.on("error", reject);
    outgoing.end(options.body);
  });
}
