import { realpath } from "node:fs/promises";
import { createServer, type Server } from "node:http";
import { join } from "node:path";
import { AccessGuard } from "../auth/access-guard.ts";
import { isLoopbackHost } from "../auth/access-token.ts";
import { BrowserSessionStore } from "../auth/browser-sessions.ts";
import { SignInStreams } from "../auth/sign-in-streams.ts";
import { HostPolicy } from "../auth/host-policy.ts";
import { ideHostName } from "../auth/ide-host.ts";
import type { DistributedNode } from "../distributed/start-distributed.ts";
import { SessionHub } from "../hub/session-hub.ts";
import { createWorktreeSessions } from "../worktree/worktree-runtime.ts";
import type { WorkerAssignment } from "../workers/worker-assignments.ts";
import type { WorkerMode } from "../workers/worker-mode.ts";
import { createRuntime } from "../runtime/create-runtime.ts";
import type { Runtime } from "../runtime/runtime-types.ts";
import { ShareStore } from "../share/share-store.ts";
import type { ShareRepository } from "../share/share-records.ts";
import { TerminalManager } from "../terminal/terminal-manager.ts";
import { createApiServices } from "./api-services.ts";
import { answerHealth } from "./health.ts";
import { sandboxStatus } from "./meta-service.ts";
import { loadNextHandler, type WebHandler } from "./next-handler.ts";
import { createTrpcHandlers, route } from "./request-router.ts";
import { listen, shutdown, trackConnections } from "./server-lifecycle.ts";
import { DEFAULT_PORT, resolveServerAccess, type StartServerOptions } from "./server-options.ts";
import { StartupGate } from "./startup-gate.ts";
import { TrustStore } from "./trust-store.ts";
import { WorkspaceFiles } from "./workspace-files.ts";

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
  /** Share links (`$CAIRN_HOME/shares.db`, or PostgreSQL in distributed mode). */
  shares: ShareRepository;
  /** Open HTTP connections (SSE streams included). */
  connectionCount(): number;
  /** Distributed mode's services (undefined when embedded). */
  distributed: DistributedNode | undefined;
  /** With `--worker-url`: the worker holding the workspace, and where that assignment is recorded. */
  worker: (WorkerAssignment & { recordedIn: string }) | undefined;
  close(): Promise<void>;
};

/**
 * One Node http server: `/api/trpc/*` goes to the tRPC router (SSE subscriptions with pings), every
 * other path to Next.js; nothing is served before the access check passes.
 */
export async function startServer(options: StartServerOptions): Promise<CairnServer> {
  const { host, token, allowedHosts } = resolveServerAccess(options);

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
    workerToken,
    ...runtimeOptions
  } = options;
  // Distributed code (and its Redis/PostgreSQL clients) is loaded only when configured.
  // A token given (CAIRN_TOKEN) is the cluster's: a node started with another one replaces it (a generated one is this node's alone).
  const distributed = distributedConfig
    ? await (await import("../distributed/start-distributed.ts")).startDistributedNode(
        distributedConfig,
        options.token !== undefined ? { accessToken: token } : {},
      )
    : undefined;
  // Trust, shares and the IDE-written settings: PostgreSQL in distributed mode, else files under $CAIRN_HOME and the workspace.
  const trustStore = distributed?.trust ?? new TrustStore(options.cairnHome);
  let runtime: Runtime;
  let workers: WorkerMode | undefined;
  try {
    // --worker-url: the workspace (named by `workspace`) lives on a worker host, assigned and recorded per workspace.
    workers =
      distributedConfig && distributedConfig.workerUrls.length > 0
        ? await (await import("../workers/worker-mode.ts")).prepareWorkerMode({
            workspace,
            workerUrls: distributedConfig.workerUrls,
            token: workerToken,
            nodeId: distributedConfig.nodeId,
            cairnHome: options.cairnHome,
            assignments: distributed?.workerAssignments,
            localSettings: distributed?.localSettings,
          })
        : undefined;
    // Trust is decided before the runtime starts: project MCP servers start with it, or not at all. On a worker the
    // workspace's path is known once it is open; its MCP servers and hooks do not run on this node anyway.
    const trusted = workers ? false : await trustStore.isTrusted(await realpath(workspace));
    runtime = await createRuntime({
      ...runtimeOptions,
      workspaceRoot: workspace,
      trusted,
      sessionStore: distributed?.sessionStore,
      localSettings: distributed?.localSettings,
      ...workers?.runtimeOptions,
    });
    if (workers && (await trustStore.isTrusted(runtime.workspaceRoot))) runtime.setTrusted(true);
  } catch (error) {
    await distributed?.close().catch(() => undefined);
    throw error;
  }
  let web: WebHandler | undefined;
  let hub: SessionHub | undefined;
  let terminals: TerminalManager | undefined;
  let server: Server | undefined;
  let shares: ShareRepository | undefined;
  let browserSessions: BrowserSessionStore | undefined;
  try {
    const sandbox = await sandboxStatus(runtime);
    // Worktree sessions and file checkpoints work on this node's disk: not for a workspace on a worker.
    const worktrees = workers === undefined ? createWorktreeSessions(runtimeOptions, runtime) : undefined;
    hub = new SessionHub({
      runtime,
      sandboxed: sandbox.available,
      ...(worktrees ? { worktrees } : {}),
      ...(workers ? { checkpoints: false } : checkpoints !== undefined ? { checkpoints } : {}),
      ...(idleTimeoutMs !== undefined ? { idleTimeoutMs } : {}),
      ...(bus ? { bus } : distributed?.bus ? { bus: distributed.bus } : {}),
      ...(distributed?.ownership ? { ownership: distributed.ownership, drainTimeoutMs: distributed.drainTimeoutMs } : {}),
      ...(deps ? { deps } : {}),
    });
    terminals = new TerminalManager(() => runtime.workspace.terminals);
    const files = new WorkspaceFiles(runtime.workspace);
    const now = shareOptions?.now ?? Date.now;
    const shareStore = distributed?.shares?.(now) ?? new ShareStore({ path: join(runtime.cairnHome, "shares.db"), now });
    shares = shareStore;
    const ttl = browserSessionTtlMs !== undefined ? { ttlMs: browserSessionTtlMs } : {};
    // auth.db keeps the IDE's host name; the sign-ins themselves live in PostgreSQL in distributed mode (shared by every node).
    const localAuth = new BrowserSessionStore({ path: join(runtime.cairnHome, "auth.db"), ...ttl });
    browserSessions = localAuth;
    const signIns = distributed?.signIns;
    const sessionStore = signIns ? signIns.sessions(ttl) : localAuth;
    const { context, shareView, timeline } = createApiServices({
      runtime,
      hub,
      worktrees,
      terminals,
      files,
      trustStore,
      shareStore,
      browserSessions: sessionStore,
      token,
      apiKey: runtimeOptions.apiKey,
      managedSettingsPath: options.managedSettingsPath,
      shareOptions,
      now,
    });
    const tokenReplaced = distributed?.tokenReplaced;
    const signInStreams = new SignInStreams({ sessions: sessionStore, ...(tokenReplaced ? { tokenReplaced } : {}) });
    const { trpc, shareTrpc } = createTrpcHandlers(context, shareView, signInStreams);

    // Attached before the port opens: until the server is ready every request is answered "starting" (503).
    const gate = new StartupGate();
    server = createServer(gate.listener);
    const connections = trackConnections(server);
    const port = await listen(server, host, options.port ?? DEFAULT_PORT);
    const ideHost = isLoopbackHost(host) ? ideHostName(localAuth) : undefined;
    const hosts = new HostPolicy({ boundHost: host, port, ideHost, allowedHosts });
    gate.restrictHosts((header) => hosts.allowsHost(header));
    const guard = new AccessGuard({
      token,
      port,
      sessions: sessionStore,
      hosts,
      ...(signIns ? { cookieName: signIns.cookieName } : {}),
      ...(tokenReplaced ? { tokenReplaced } : {}),
    });
    if (webDir !== null) web = await loadNextHandler({ webDir, hostname: host, port });
    // Distributed mode: live sessions through this process's code before the node reports ready (node-warm-up.ts).
    if (distributed && distributedConfig?.warmUp) {
      const { DEFAULT_WARM_UP, warmUpNode } = await import("../distributed/node-warm-up.ts");
      try {
        const done = await warmUpNode({
          size: DEFAULT_WARM_UP,
          // The same model transport as the node's own sessions; no telemetry, settings or MCP servers of its own.
          startServer: (scratch) =>
            startServer({ ...scratch, version: options.version, ...(runtimeOptions.modelFetch ? { modelFetch: runtimeOptions.modelFetch } : {}) }),
          scratchBuses: distributed.scratchBuses,
        });
        distributed.log.info({ deltas: done.deltas, elapsedMs: Math.round(done.elapsedMs) }, "warmed up");
      } catch (error) {
        distributed.log.warn({ error: (error as Error).message }, "the warm-up failed; serving without it");
      }
    }
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
        signIns: signInStreams,
      });
    });

    // A server of the IDE (its web app) starts its timeline thread now that it is ready, while it waits for the first
    // page: the thread's start and code loading are then not part of the first timeline opened. An API-only server
    // (tests) starts it at its first timeline call.
    if (webHandler) setImmediate(() => void timeline.start());

    const urlHost = host.includes(":") && !host.startsWith("[") ? `[${host}]` : host;
    const url = `http://${urlHost}:${port}`;
    const ideUrl = ideHost !== undefined ? `http://${ideHost}:${port}` : url;
    const openServer = server;
    const openHub = hub;
    const openTerminals = terminals;
    const assignment = workers?.assignment();
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
      shares: shareStore,
      distributed,
      worker: assignment ? { ...assignment, recordedIn: workers?.assignmentsLocation ?? "" } : undefined,
      connectionCount: () => connections.count(),
      close() {
        accepting = false;
        signInStreams.close();
        closing ??= shutdown({
          server: openServer,
          hub: openHub,
          terminals: openTerminals,
          web: webHandler,
          runtime,
          shares: shareStore,
          browserSessions: localAuth,
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
