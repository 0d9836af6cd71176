import { Redis } from "ioredis";
import type { DestinationStream } from "pino";
import { createNodeLogger, type NodeLogger } from "./node-logger.ts";
import { createChangeChannel, type ChangeChannel } from "./postgres/change-channel.ts";
import { clusterCookieName, createPostgresBrowserSessions } from "./postgres/postgres-browser-sessions.ts";
import { type AccessTokenClaim, AccessTokenReplacedError, claimAccessToken } from "./postgres/postgres-access-token.ts";
import { createPostgresShareRepository } from "./postgres/postgres-share-repository.ts";
import { createPostgresLocalSettings } from "./postgres/postgres-local-settings.ts";
import { createPostgresTrust } from "./postgres/postgres-trust.ts";
import { createPostgresWorkerAssignments } from "./postgres/postgres-worker-assignments.ts";
import type { WorkerAssignmentStore } from "../workers/worker-assignments.ts";
import type { ShareRepository } from "../share/share-records.ts";
import type { BrowserSessionRepository } from "../auth/browser-session-secrets.ts";
import type { TrustRepository } from "../server/trust-store.ts";
import type { LocalSettingsStoreFactory } from "../runtime/local-settings.ts";
import type { EventBus } from "../hub/event-bus.ts";
import type { SessionOwnership } from "../hub/session-ownership.ts";
import type { SessionStoreFactory } from "../session-store/session-store.ts";
import { RedisEventBus } from "./redis/redis-event-bus.ts";
import type { ScratchBus } from "./node-warm-up.ts";
import { redactUrl, type DistributedConfig } from "./distributed-config.ts";
import { openDatabase, type Database } from "./postgres/database.ts";
import { migrate } from "./postgres/migrations.ts";
import { createPostgresSessionStore } from "./postgres/postgres-session-store.ts";
import { createSessionLeaseStore } from "./postgres/session-leases.ts";
import { RedisCommandChannel } from "./redis/command-channel.ts";
import { DEFAULT_LEASE_TTL_MS, SessionLeasing } from "./session-leasing.ts";

/** What a node in distributed mode adds to the server: shared stores, and what to close at the end. */
export type DistributedNode = {
  nodeId: string;
  /** Structured log lines (JSON, with the node id) on stderr. */
  log: NodeLogger;
  /** Transcripts and the session index in PostgreSQL (undefined without `--database-url`). */
  sessionStore: SessionStoreFactory | undefined;
  /** Share links, trust decisions and the IDE-written settings in PostgreSQL (undefined without `--database-url`). */
  shares: ((now: () => number) => ShareRepository) | undefined;
  trust: TrustRepository | undefined;
  /**
   * Browser sign-ins in PostgreSQL under one cookie name for the cluster, so any node admits a browser signed in
   * through another (undefined without `--database-url`: each node keeps its own auth.db).
   */
  signIns: { cookieName: string; sessions: (options: { ttlMs?: number; now?: () => number }) => BrowserSessionRepository } | undefined;
  localSettings: LocalSettingsStoreFactory | undefined;
  /**
   * Aborted once a node of the cluster started with another access token (PostgreSQL; undefined without it, or when
   * this node's token was generated rather than given): this node's token is refused and its streams end.
   */
  tokenReplaced: AbortSignal | undefined;
  /** Which worker holds which workspace, in PostgreSQL (undefined without `--database-url`: kept in memory). */
  workerAssignments: WorkerAssignmentStore | undefined;
  /** The event fan-out over Redis Streams (undefined without `--redis-url`). */
  bus: EventBus | undefined;
  /**
   * Two event buses on scratch streams of the same Redis (a key prefix of their own), for the warm-up's scratch
   * servers; once both are closed their keys are deleted (undefined without `--redis-url`).
   */
  scratchBuses: (() => Promise<[ScratchBus, ScratchBus]>) | undefined;
  /** Session leases in PostgreSQL, commands routed over Redis (undefined without `--database-url`). */
  ownership: SessionOwnership | undefined;
  /** How long a draining node lets running prompts go on (ms). */
  drainTimeoutMs: number | undefined;
  /** Each shared service's state for `/readyz`: "ok" or the error (each probe bounded to 2 s). */
  checks(): Promise<Record<string, string>>;
  /** One line per service, for the start banner. */
  describe(): string[];
  close(): Promise<void>;
};

export class DistributedStartError extends Error {
  override readonly name = "DistributedStartError";
  readonly code = "distributed_unavailable";
}

/**
 * Connects this node to the configured services and brings the database schema up to date.
 * Loaded only when distributed mode is configured: the embedded default never imports it (or its
 * clients). A service that cannot be reached at start stops the start with its (password-free) URL.
 */
export async function startDistributedNode(
  config: DistributedConfig,
  options: { logDestination?: DestinationStream; accessToken?: string } = {},
): Promise<DistributedNode> {
  const log = createNodeLogger(config.nodeId, options.logDestination);
  const logError = (message: string, fields: Record<string, unknown> = {}) => log.error(fields, message);
  let sql: Database | undefined;
  let cookieName: string | undefined;
  let tokenClaim: AccessTokenClaim | undefined;
  let changes: ChangeChannel | undefined;
  let leasing: SessionLeasing | undefined;
  let redis: Redis | undefined;
  let bus: RedisEventBus | undefined;
  let channel: RedisCommandChannel | undefined;
  const lines: string[] = [`node id: ${config.nodeId}`];
  try {
    if (config.databaseUrl !== undefined) {
      sql = openDatabase(config.databaseUrl, { applicationName: `cairn ${config.nodeId}` });
      try {
        const applied = await migrate(sql);
        cookieName = await clusterCookieName(sql);
        changes = createChangeChannel(sql, (message) => logError(`PostgreSQL change notices: ${message}`, { service: "postgres" }));
        // Notices count from before the node serves anything (a revoke, a sign-out, a new token told meanwhile would be missed).
        await changes.listening();
        if (options.accessToken !== undefined)
          tokenClaim = await claimAccessToken({
            sql,
            changes,
            token: options.accessToken,
            onError: (error) => logError(`access token check: ${error.message}`, { service: "postgres" }),
          });
        lines.push(`PostgreSQL: ${redactUrl(config.databaseUrl)} (${applied.length > 0 ? `migrated to schema ${applied.at(-1)}` : "schema up to date"})`);
      } catch (error) {
        if (error instanceof AccessTokenReplacedError) throw new DistributedStartError(error.message, { cause: error });
        throw new DistributedStartError(`PostgreSQL at ${redactUrl(config.databaseUrl)}: ${(error as Error).message}`, { cause: error });
      }
    }
    if (config.redisUrl !== undefined) {
      const url = redactUrl(config.redisUrl);
      // Reconnects with backoff (50 ms doubling to 2 s); commands wait for the connection instead of failing at once.
      redis = new Redis(config.redisUrl, {
        lazyConnect: true,
        maxRetriesPerRequest: null,
        retryStrategy: (attempt) => Math.min(2_000, 50 * 2 ** Math.min(attempt, 6)),
        connectionName: `cairn-${config.nodeId}`,
      });
      // Connection errors while Redis is away are retried; each becomes one log line instead of an unhandled event.
      redis.on("error", (error: Error) => logError(`Redis connection: ${error.message}`, { service: "redis" }));
      redis.on("reconnecting", (delayMs: number) => log.warn({ service: "redis", delayMs }, "reconnecting to Redis"));
      redis.on("ready", () => log.info({ service: "redis", url }, "connected to Redis"));
      try {
        await redis.connect();
        await redis.ping();
      } catch (error) {
        throw new DistributedStartError(`Redis at ${url}: ${(error as Error).message}`, { cause: error });
      }
      // With leases (PostgreSQL too), each append carries this node's lease generation and the stream's fence refuses a stale one.
      const fence = sql ? (sessionId: string) => leasing?.fence(sessionId) : undefined;
      bus = new RedisEventBus({ redis, ...(fence ? { fence } : {}), onError: (error, context) => logError(`Redis ${context}: ${error.message}`) });
      lines.push(`Redis: ${url} (event streams)`);
    }
    // Leases need both: PostgreSQL fences the writes, Redis carries the commands to the owner. Without
    // Redis nothing could reach an owner, so PostgreSQL alone keeps sessions unleased (one node per session by hand).
    if (sql && redis) {
      const ttlMs = config.leaseTtlMs ?? DEFAULT_LEASE_TTL_MS;
      const streams = bus;
      const owner = new SessionLeasing({
        nodeId: config.nodeId,
        leases: createSessionLeaseStore(sql, { ttlMs }),
        ttlMs,
        ...(streams ? { fenceEvents: (sessionId: string, generation: number) => streams.raiseFence(sessionId, generation) } : {}),
        onError: (error, context) => logError(`${context}: ${error.message}`),
      });
      leasing = owner;
      channel = new RedisCommandChannel({
        redis,
        nodeId: config.nodeId,
        handle: (command) => owner.handle(command),
        onError: (error, context) => logError(`Redis ${context}: ${error.message}`),
      });
      owner.attach(channel);
      await channel.start();
      lines.push(`session leases: PostgreSQL, ${ttlMs} ms TTL; commands routed to owners over Redis`);
    }
  } catch (error) {
    tokenClaim?.close();
    await channel?.close().catch(() => undefined);
    await changes?.close().catch(() => undefined);
    await sql?.end({ timeout: 1 }).catch(() => undefined);
    redis?.disconnect();
    throw error;
  }
  const client = redis;
  const events = bus;
  const database = sql;
  const leases = leasing;
  const commands = channel;
  const notices = changes;
  const claim = tokenClaim;
  const shared = database && notices ? { sql: database, changes: notices } : undefined;
  log.info({ services: lines.slice(1) }, "distributed node started");
  return {
    nodeId: config.nodeId,
    log,
    shares: shared ? (now) => createPostgresShareRepository({ ...shared, now }) : undefined,
    trust: shared ? createPostgresTrust({ ...shared, nodeId: config.nodeId }) : undefined,
    signIns:
      shared && cookieName !== undefined
        ? { cookieName, sessions: (signInOptions) => createPostgresBrowserSessions({ ...shared, ...signInOptions }) }
        : undefined,
    localSettings: shared ? (workspaceRoot) => createPostgresLocalSettings({ ...shared, workspaceRoot }) : undefined,
    workerAssignments: database ? createPostgresWorkerAssignments(database) : undefined,
    tokenReplaced: claim?.replaced,
    sessionStore: database
      ? (location) =>
          createPostgresSessionStore({
            ...location,
            sql: database,
            ...(leases
              ? {
                  fence: leases.fence,
                  onFenced: (sessionId, generation) =>
                    logError(
                      `refused a write to session ${sessionId}: ${generation === undefined ? "this node holds no lease for it" : `lease generation ${generation} is no longer current (another node took the session over)`}`,
                    ),
                }
              : {}),
          })
      : undefined,
    bus: events,
    scratchBuses: client ? () => scratchBuses(client, config.nodeId) : undefined,
    ownership: leases,
    drainTimeoutMs: config.drainTimeoutMs,
    async checks() {
      const checks: Record<string, string> = {};
      const probes: Array<Promise<void>> = [];
      if (database) probes.push(probe(async () => void (await database`select 1`)).then((state) => void (checks.postgres = state)));
      if (client) probes.push(probe(async () => void (await client.ping())).then((state) => void (checks.redis = state)));
      await Promise.all(probes);
      return checks;
    },
    describe: () => [...lines],
    async close() {
      await commands?.close().catch(() => undefined);
      await events?.close().catch(() => undefined);
      await client?.quit().catch(() => client.disconnect());
      claim?.close();
      await notices?.close();
      await database?.end({ timeout: 5 });
    },
  };
}

/** "ok", or why the call failed or did not answer within 2 s. */
async function probe(call: () => Promise<void>): Promise<string> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timeout = new Promise<string>((resolve) => {
    timer = setTimeout(() => resolve("no answer within 2 s"), 2_000);
  });
  try {
    return await Promise.race([call().then(() => "ok"), timeout]);
  } catch (error) {
    return (error as Error).message || "unavailable";
  } finally {
    clearTimeout(timer);
  }
}

/**
 * Two buses on streams under `cairn:warm-up:<node>:<random>:`, each on connections of its own. Closing the second of
 * them (no bus left to append) deletes every key under the prefix, once.
 */
async function scratchBuses(redis: Redis, nodeId: string): Promise<[ScratchBus, ScratchBus]> {
  const prefix = `cairn:warm-up:${nodeId}:${Math.random().toString(36).slice(2)}:`;
  let open = 2;
  const make = (): ScratchBus => {
    const connection = redis.duplicate();
    connection.on("error", () => undefined);
    // Fenced as a node's own sessions are under their leases (a generation of 1 for each), so the appends take the same path.
    const bus = new RedisEventBus({ redis: connection, prefix, fence: () => 1 });
    return {
      bus,
      async close() {
        const last = --open === 0;
        await bus.close();
        if (last) {
          let cursor = "0";
          do {
            const [next, keys] = await connection.scan(cursor, "MATCH", `${prefix}*`, "COUNT", 1000);
            if (keys.length > 0) await connection.unlink(...keys);
            cursor = next;
          } while (cursor !== "0");
        }
        await connection.quit().catch(() => connection.disconnect());
      },
    };
  };
  return [make(), make()];
}
