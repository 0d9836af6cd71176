import type { QueryDeps } from "@cairn/core";
import { generateAccessToken, isLoopbackHost } from "../auth/access-token.ts";
import { type AllowedHost, InvalidAllowedHostError, parseAllowedHosts } from "../auth/host-policy.ts";
import type { DistributedConfig } from "../distributed/distributed-config.ts";
import type { EventBus } from "../hub/event-bus.ts";
import type { Runtime, RuntimeOptions } from "../runtime/runtime-types.ts";
import type { RateLimiterOptions } from "../share/rate-limiter.ts";
import type { TimelineSourceLoader } from "../share/share-view-service.ts";
import type { StreamLimits } from "../share/stream-gate.ts";

export const DEFAULT_HOST = "127.0.0.1";
export const DEFAULT_PORT = 3000;

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
  /** CAIRN_WORKER_TOKEN: what the workers of `distributed.workerUrls` require. */
  workerToken?: string | undefined;
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

/** Who may reach the server: the bound host, the access token and the extra host names, checked before anything starts. */
export type ServerAccess = { host: string; token: string; allowedHosts: AllowedHost[] };

export function resolveServerAccess(options: Pick<StartServerOptions, "host" | "token" | "allowedHosts">): ServerAccess {
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
  try {
    return { host, token, allowedHosts: parseAllowedHosts(options.allowedHosts ?? []) };
  } catch (error) {
    if (error instanceof InvalidAllowedHostError) throw new ServerConfigError("invalid_allowed_host", error.message);
    throw error;
  }
}
