import { realpath } from "node:fs/promises";
import { homedir } from "node:os";
import { join } from "node:path";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo, Socket } from "node:net";
import { createHTTPHandler } from "@trpc/server/adapters/standalone";
import type { QueryDeps } from "@cairn/core";
import { AccessGuard } from "../auth/access-guard.ts";
import { generateAccessToken, isLoopbackHost } from "../auth/access-token.ts";
import { BrowserSessionStore } from "../auth/browser-sessions.ts";
import { ideHostName } from "../auth/ide-host.ts";
import { HostPolicy, InvalidAllowedHostError, parseAllowedHosts, type AllowedHost } from "../auth/host-policy.ts";
import { SessionHub } from "../hub/session-hub.ts";
import type { EventBus } from "../hub/event-bus.ts";
import type { ApiContext } from "../router/context.ts";
import { appRouter } from "../router/index.ts";
import { shareViewRouter, type ShareViewContext } from "../router/share-view.ts";
import { secretEnvironmentValues } from "../share/env-secrets.ts";
import { clientKey } from "../share/client-key.ts";
import { RATE_LIMITED_PAGE, SHARE_EVENTS_PATH, shareTokenOf } from "../share/share-http.ts";
import { TokenBucketLimiter, type RateLimiterOptions } from "../share/rate-limiter.ts";
import { DEFAULT_STREAM_LIMITS, ShareStreamGate, type StreamAdmission, type StreamLimits } from "../share/stream-gate.ts";
import { createRedactor } from "../share/redact.ts";
import { createNonce, passNonceToNext, pinHeaders, sharePageCsp, shareHeaders, shareRouteOf } from "../share/share-headers.ts";
import { ShareService } from "../share/share-service.ts";
import { ShareStore } from "../share/share-store.ts";
import { ShareViewService, type TimelineSourceLoader } from "../share/share-view-service.ts";
import { createReviewPort } from "../review/review-port.ts";
import { GitService } from "../git/git-service.ts";
import { createRuntime, type Runtime, type RuntimeOptions } from "../runtime/create-runtime.ts";
import { TerminalManager } from "../terminal/terminal-manager.ts";
import { loadTimelineSource } from "../timeline/source.ts";
import { TimelineService } from "../timeline/timeline-service.ts";
import { McpService } from "./mcp-service.ts";
import { StartupGate } from "./startup-gate.ts";
import { MetaService, sandboxStatus } from "./meta-service.ts";
import { loadNextHandler, type WebHandler } from "./next-handler.ts";
import { SettingsService } from "./settings-service.ts";
import { TrustStore } from "./trust-store.ts";
import { WorkspaceFiles } from "./workspace-files.ts";
import { answerHealth } from "./health.ts";
import type { DistributedConfig } from "../distributed/distributed-config.ts";
import type { DistributedNode } from "../distributed/start-distributed.ts";

export const DEFAULT_HOST = "127.0.0.1";
export const DEFAULT_PORT = 3000;
const TRPC_PREFIX = "/api/trpc/";
const SHARE_API_PREFIX = "/api/share/";
/** The largest request: an uploaded Claude Code transcript (50 MB of JSONL) plus its JSON escaping. */
const MAX_BODY_BYTES = 80 * 1024 * 1024;

export class ServerConfigError extends Error {
  override readonly name = "ServerConfigError";
  readonly code: "token_required" | "invalid_token" | "invalid_allowed_host";
  constructor(code: "token_required" | "invalid_token" | "invalid_allowed_host", message: string) {
    super(message);
    this.code = code;
  }
}

export type StartServerOptions = Omit<RuntimeOptions, "workspaceRoot" | "trusted"> & {
  /** The folder to open. */
  workspace: string;
  host?: string;
  /** 0 picks a free port. */
  port?: number;
  /** Required when `host` is not a loopback address; otherwise random. */
  token?: string;
  /** Host names the server also answers to (a reverse proxy's, a LAN name): `name` or `name:port`. */
  allowedHosts?: readonly string[];
  /** The built Next.js app to serve for every non-API path; null serves the API alone (tests). */
  webDir: string | null;
  /** Hub options (tests and benchmarks). */
  checkpoints?: boolean;
  idleTimeoutMs?: number;
  bus?: EventBus;
  deps?: (runtime: Runtime) => QueryDeps;
  /** How long a browser stays signed in (default 30 days). */
  browserSessionTtlMs?: number;
  /** Share links: clock, environment whose secret-looking values are redacted (default the process's), limits (tests). */
  share?: ShareOptions;
  /** Distributed mode (`--database-url` …); undefined runs embedded and loads none of it. */
  distributed?: DistributedConfig | undefined;
};

export type ShareOptions = {
  now?: () => number;
  environment?: Readonly<Record<string, string | undefined>>;
  /** Failed lookups per client (default 30, refilled 30 a minute). */
  rateLimit?: RateLimiterOptions;
  /** Open live-share streams at once: per client, per share, in total (default 4 / 20 / 100). */
  streams?: Partial<StreamLimits>;
  /** Live-share streams a client may open (default 30, refilled 30 a minute). */
  streamOpens?: RateLimiterOptions;
  /** How often an open live-share stream re-checks expiry (default 500 ms). */
  recheckMs?: number;
  timeline?: TimelineSourceLoader;
};

export type CairnServer = {
  /** `http://host:port`: the bound address (scripts, tests). */
  url: string;
  /** Where the IDE lives: `http://cairn-<random>.localhost:port` on a loopback address (its cookie stays on that name), else `url`. */
  ideUrl: string;
  /** The URL to open once: `ideUrl` with the token. */
  loginUrl: string;
  token: string;
  port: number;
  runtime: Runtime;
  hub: SessionHub;
  terminals: TerminalManager;
  files: WorkspaceFiles;
  /** Share links (`$CAIRN_HOME/shares.db`). */
  shares: ShareStore;
  /** Open HTTP connections (SSE streams included). */
  connectionCount(): number;
  /** Distributed mode's services (undefined when embedded). */
  distributed: DistributedNode | undefined;
  close(): Promise<void>;
};

/**
 * One Node http server: `/api/trpc/*` goes to the tRPC router (SSE subscriptions with pings), every
 * other path to Next.js; nothing is served before the access check passes.
 */
export async function startServer(options: StartServerOptions): Promise<CairnServer> {
  const host = options.host ?? DEFAULT_HOST;
  if (!isLoopbackHost(host) && options.token === undefined) {
    throw new ServerConfigError(
      "token_required",
      `Refusing to listen on ${host} without an explicit access token (set CAIRN_TOKEN): anyone who can reach it could run commands.`,
    );
  }
  if (options.token !== undefined && options.token.length < 16)
    throw new ServerConfigError("invalid_token", "The access token must be at least 16 characters long");
  const token = options.token ?? generateAccessToken();
  let allowedHosts: AllowedHost[];
  try {
    allowedHosts = parseAllowedHosts(options.allowedHosts ?? []);
  } catch (error) {
    if (error instanceof InvalidAllowedHostError) throw new ServerConfigError("invalid_allowed_host", error.message);
    throw error;
  }

  const trustStore = new TrustStore(options.cairnHome);
  // Everything but the server's own options configures the runtime.
  const {
    workspace,
    host: _host,
    port: _port,
    token: _token,
    webDir,
    checkpoints,
    idleTimeoutMs,
    bus,
    deps,
    share: shareOptions,
    browserSessionTtlMs,
    allowedHosts: _allowedHosts,
    distributed: distributedConfig,
    ...runtimeOptions
  } = options;
  // Trust is decided before the runtime starts: project MCP servers start with it, or not at all.
  const trusted = await trustStore.isTrusted(await realpath(workspace));
  // Distributed code (and its Redis/PostgreSQL clients) is loaded only when configured.
  const distributed = distributedConfig
    ? await (await import("../distributed/start-distributed.ts")).startDistributedNode(distributedConfig, {
        // One JSON line per problem, with the node's id (the start of structured logs for distributed mode).
        onError: (message) => process.stderr.write(`${JSON.stringify({ level: "error", nodeId: distributedConfig.nodeId, message })}\n`),
      })
    : undefined;
  let runtime: Runtime;
  try {
    runtime = await createRuntime({ ...runtimeOptions, workspaceRoot: workspace, trusted, sessionStore: distributed?.sessionStore });
  } catch (error) {
    await distributed?.close().catch(() => undefined);
    throw error;
  }
  let web: WebHandler | undefined;
  let hub: SessionHub | undefined;
  let terminals: TerminalManager | undefined;
  let server: Server | undefined;
  let shares: ShareStore | undefined;
  let browserSessions: BrowserSessionStore | undefined;
  try {
    const sandbox = await sandboxStatus(runtime);
    hub = new SessionHub({
      runtime,
      sandboxed: sandbox.available,
      ...(checkpoints !== undefined ? { checkpoints } : {}),
      ...(idleTimeoutMs !== undefined ? { idleTimeoutMs } : {}),
      ...(bus ? { bus } : distributed?.bus ? { bus: distributed.bus } : {}),
      ...(deps ? { deps } : {}),
    });
    terminals = new TerminalManager(runtime);
    const sessionHub = hub;
    const files = new WorkspaceFiles(runtime.workspace);
    const now = shareOptions?.now ?? Date.now;
    const shareStore = new ShareStore({ path: join(runtime.cairnHome, "shares.db"), now });
    shares = shareStore;
    const sessionStore = new BrowserSessionStore({
      path: join(runtime.cairnHome, "auth.db"),
      ...(browserSessionTtlMs !== undefined ? { ttlMs: browserSessionTtlMs } : {}),
    });
    browserSessions = sessionStore;
    const redactor = createRedactor({
      extraSecrets: [
        { kind: "cairn-access-token", value: token },
        ...secretEnvironmentValues(shareOptions?.environment ?? process.env),
        ...secretEnvironmentValues(runtime.settings.merged.env ?? {}),
        ...(runtimeOptions.apiKey ? [{ kind: "env-secret", value: runtimeOptions.apiKey }] : []),
      ],
      workspaceRoot: runtime.workspaceRoot,
      homeDir: homedir(),
    });
    const shareView = new ShareViewService({
      store: shareStore,
      sessions: sessionHub,
      redactor,
      limiter: new TokenBucketLimiter({ now, ...shareOptions?.rateLimit }),
      gate: new ShareStreamGate({
        limits: { ...DEFAULT_STREAM_LIMITS, ...shareOptions?.streams },
        opens: new TokenBucketLimiter({ now, ...shareOptions?.streamOpens }),
      }),
      workspaceRoot: runtime.workspaceRoot,
      now,
      ...(shareOptions?.recheckMs !== undefined ? { recheckMs: shareOptions.recheckMs } : {}),
      // A shared timeline shows what the share shows: the lines of its (possibly pinned) messages.
      timeline:
        shareOptions?.timeline ??
        ((input) =>
          loadTimelineSource(runtime, input.sessionId, {
            messageUuids: new Set(input.messages.map((message) => message.uuid)),
            ...(input.signal ? { signal: input.signal } : {}),
          })),
    });
    const context: ApiContext = {
      meta: new MetaService(runtime, trustStore),
      sessions: sessionHub,
      files,
      settings: new SettingsService(runtime, (sessionId) => sessionHub.sessionRules(sessionId), options.managedSettingsPath),
      terminals,
      shares: new ShareService({ store: shareStore, sessions: sessionHub, redactor, workspaceRoot: runtime.workspaceRoot, now }),
      mcp: new McpService(runtime.mcp),
      timeline: new TimelineService(runtime),
      review: createReviewPort(sessionHub, runtime.workspace),
      git: new GitService({
        // Git runs where the workspace lives (in the worker, when it is a separate process), never here.
        repository: runtime.workspace.git,
        model: { client: runtime.model.client, name: () => runtime.store.getState().model },
      }),
      auth: { signOutEverywhere: () => sessionStore.revokeAll() },
    };
    const trpc = createHTTPHandler({ router: appRouter, basePath: TRPC_PREFIX, createContext: () => context, maxBodySize: MAX_BODY_BYTES });
    // A second handler for the read-only share router: its context holds the share view alone.
    const shareTrpc = createHTTPHandler({
      router: shareViewRouter,
      basePath: SHARE_API_PREFIX,
      createContext: ({ req }): ShareViewContext => ({ view: shareView, client: clientKey(req.socket.remoteAddress) }),
      maxBodySize: 64 * 1024,
    });

    // Attached before the port opens: until the server is ready every request is answered "starting" (503).
    const gate = new StartupGate();
    server = createServer(gate.listener);
    const sockets = new Set<Socket>();
    server.on("connection", (socket: Socket) => {
      sockets.add(socket);
      socket.once("close", () => sockets.delete(socket));
    });
    const port = await listen(server, host, options.port ?? DEFAULT_PORT);
    const ideHost = isLoopbackHost(host) ? ideHostName(sessionStore) : undefined;
    const hosts = new HostPolicy({ boundHost: host, port, ideHost, allowedHosts });
    gate.restrictHosts((header) => hosts.allowsHost(header));
    const guard = new AccessGuard({ token, port, sessions: sessionStore, hosts });
    if (webDir !== null) web = await loadNextHandler({ webDir, hostname: host, port });
    const webHandler = web;
    let accepting = true;
    const health = { nodeId: distributed?.nodeId, accepting: () => accepting, checks: async () => (distributed ? distributed.checks() : {}) };
    gate.open((request, response) => {
      if (answerHealth(request, response, health)) return;
      route(request, response, {
        hosts,
        guard,
        trpc,
        shareTrpc,
        web: webHandler,
        sharePage: (shareToken, client) => shareView.pageState(shareToken, client),
        admitShareStream: (shareToken, client) => shareView.admitStream(shareToken, client),
      });
    });

    const urlHost = host.includes(":") && !host.startsWith("[") ? `[${host}]` : host;
    const url = `http://${urlHost}:${port}`;
    const ideUrl = ideHost !== undefined ? `http://${ideHost}:${port}` : url;
    const openServer = server;
    const openHub = hub;
    const openTerminals = terminals;
    const openShares = shareStore;
    let closing: Promise<void> | undefined;
    return {
      url,
      ideUrl,
      loginUrl: `${ideUrl}/?token=${token}`,
      token,
      port,
      runtime,
      hub: openHub,
      terminals: openTerminals,
      files,
      shares: openShares,
      distributed,
      connectionCount: () => sockets.size,
      close() {
        accepting = false;
        closing ??= shutdown({
          server: openServer,
          hub: openHub,
          terminals: openTerminals,
          web: webHandler,
          runtime,
          shares: openShares,
          browserSessions: sessionStore,
          distributed,
        });
        return closing;
      },
    };
  } catch (error) {
    await shutdown({ server, hub, terminals, web, runtime, shares, browserSessions, distributed }).catch(() => undefined);
    throw error;
  }
}

type Routes = {
  hosts: HostPolicy;
  guard: AccessGuard;
  trpc: (request: IncomingMessage, response: ServerResponse) => void;
  shareTrpc: (request: IncomingMessage, response: ServerResponse) => void;
  web: WebHandler | undefined;
  /** What `/share/<token>` shows: the share; for a dead one the page is asked for a path it answers with its 404; 429 when rate-limited. */
  sharePage: (token: string, client: string) => "available" | "not_found" | "rate_limited";
  /** A place for one more live-share stream; undefined when the token opens no live share. */
  admitShareStream: (token: string, client: string) => StreamAdmission | undefined;
};

/** A share page path that is never a token: the web app's share page answers it with HTTP 404 and "not available". */
const DEAD_SHARE_PAGE = "/share/-";

function route(request: IncomingMessage, response: ServerResponse, routes: Routes): void {
  response.setHeader("Referrer-Policy", "no-referrer");
  response.setHeader("X-Content-Type-Options", "nosniff");
  if (!routes.hosts.allowsHost(request.headers.host)) {
    // DNS rebinding: a page under a foreign name that resolves here. Nothing is served to it, not even login.
    request.resume();
    response.writeHead(403, { "Content-Type": "text/plain; charset=utf-8", "Cache-Control": "no-store", Connection: "close" });
    response.end("403 Forbidden: this host name is not allowed; an administrator can add it with --allowed-host\n");
    return;
  }
  const shareRoute = shareRouteOf(request.url);
  if (shareRoute === "api" || shareRoute === "page") {
    const nonce = shareRoute === "page" ? createNonce() : undefined;
    pinHeaders(response, shareHeaders(shareRoute, nonce));
    if (nonce !== undefined) passNonceToNext(request, sharePageCsp(nonce));
  }
  const decision = routes.guard.check(request);
  switch (decision.kind) {
    case "login":
      response.writeHead(303, { Location: decision.location, "Set-Cookie": decision.setCookie, "Cache-Control": "no-store" });
      response.end();
      return;
    case "unauthorized":
      response.writeHead(401, { "Content-Type": "text/plain; charset=utf-8", "Cache-Control": "no-store" });
      response.end(`401 Unauthorized: ${decision.reason}\n`);
      return;
    case "forbidden":
      response.writeHead(403, { "Content-Type": "text/plain; charset=utf-8", "Cache-Control": "no-store" });
      response.end(`403 Forbidden: ${decision.reason}\n`);
      return;
    case "allow":
      break;
  }
  const path = (request.url ?? "/").split("?")[0] ?? "/";
  if (shareRoute === "api") {
    // The share router has no mutation; refuse every other method before tRPC sees it.
    const method = (request.method ?? "GET").toUpperCase();
    if (method !== "GET" && method !== "HEAD") {
      // Drain the body: an unread body would otherwise break the next request on a kept-alive connection.
      request.resume();
      response.writeHead(405, { Allow: "GET, HEAD", "Content-Type": "text/plain; charset=utf-8", Connection: "close" });
      response.end("405 Method Not Allowed: share links are read-only\n");
      return;
    }
    if (path === SHARE_EVENTS_PATH) {
      // Admitted here, before tRPC: a subscription's own errors travel inside a 200 event stream.
      const admission = routes.admitShareStream(shareTokenOf(request.url), clientKey(request.socket.remoteAddress));
      if (admission?.kind === "refused") {
        response.writeHead(429, { "Content-Type": "text/plain; charset=utf-8", "Retry-After": "60" });
        response.end(`429 Too Many Requests: ${admission.reason}\n`);
        return;
      }
      if (admission?.kind === "admitted") response.once("close", admission.release);
    }
    routes.shareTrpc(request, response);
    return;
  }
  if (path.startsWith(TRPC_PREFIX)) {
    response.setHeader("Cache-Control", "no-store");
    // tRPC's non-batched JSON parser fails on an empty body (httpLink sends none for an undefined
    // input); every procedure that may omit its input accepts {}.
    if (request.method === "POST" && request.headers["content-length"] === "0") (request as IncomingMessage & { body?: string }).body = "{}";
    routes.trpc(request, response);
    return;
  }
  if (shareRoute === "page") {
    const state = routes.sharePage(path.slice("/share/".length), clientKey(request.socket.remoteAddress));
    if (state === "rate_limited") {
      response.writeHead(429, { "Content-Type": "text/html; charset=utf-8", "Retry-After": "60" });
      response.end(RATE_LIMITED_PAGE);
      return;
    }
    if (state === "not_found") request.url = DEAD_SHARE_PAGE;
  }
  if (!routes.web) {
    response.writeHead(404, { "Content-Type": "text/plain; charset=utf-8" });
    response.end("404 Not Found: this server serves the API only\n");
    return;
  }
  routes.web.handle(request, response).catch((error: unknown) => {
    if (!response.headersSent) response.writeHead(500, { "Content-Type": "text/plain; charset=utf-8" });
    response.end(`500 Internal Server Error: ${(error as Error).message}\n`);
  });
}

function listen(server: Server, host: string, port: number): Promise<number> {
  return new Promise((resolve, reject) => {
    const onError = (error: Error) => reject(error);
    server.once("error", onError);
    server.listen(port, host, () => {
      server.off("error", onError);
      resolve((server.address() as AddressInfo).port);
    });
  });
}

async function shutdown(parts: {
  server: Server | undefined;
  hub: SessionHub | undefined;
  terminals: TerminalManager | undefined;
  web: WebHandler | undefined;
  runtime: Runtime;
  shares?: ShareStore | undefined;
  browserSessions?: BrowserSessionStore | undefined;
  distributed?: DistributedNode | undefined;
}): Promise<void> {
  const { server } = parts;
  const closed = server?.listening
    ? new Promise<void>((resolve) => {
        server.close(() => resolve());
      })
    : Promise.resolve();
  // SSE streams never end on their own; dropping them aborts their subscriptions.
  server?.closeAllConnections();
  await Promise.allSettled([parts.hub?.close(), parts.terminals?.closeAll()]);
  parts.shares?.close();
  parts.browserSessions?.close();
  await closed;
  await parts.web?.close().catch(() => undefined);
  await parts.runtime.close();
  await parts.distributed?.close().catch(() => undefined);
}
