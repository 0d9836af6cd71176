import { z } from "zod";

/**
 * Distributed mode, switched on by configuration: a Redis for the event fan-out, a PostgreSQL for
 * shared state, remote workers, and the id this node goes by. Every field is optional except the node
 * id; with none of the URLs set Cairn runs embedded, exactly as without this object.
 */
export type DistributedConfig = {
  /** `redis://` or `rediss://` (TLS). */
  redisUrl: string | undefined;
  /** `postgres://` or `postgresql://`. */
  databaseUrl: string | undefined;
  /** `ws://` or `wss://` addresses of `cairn worker --listen` hosts. */
  workerUrls: string[];
  /** This node's id in leases and logs; default `<hostname>-<pid>`. */
  nodeId: string;
  /** How long a session lease lasts without renewal (ms); default 8,000. */
  leaseTtlMs?: number;
  /** At shutdown, how long running prompts may go on before they are interrupted and handed over (ms); default 30,000. */
  drainTimeoutMs?: number;
  /**
   * Run live scratch sessions through this process's code before reporting ready (node-warm-up.ts). `cairn serve`
   * turns it on unless told `--warm-up off`; a config built by hand (tests) has it off unless it says so.
   */
  warmUp?: boolean;
};

/** What the command line and the environment said, before validation (flags win over the environment). */
export type DistributedSettings = {
  redisUrl?: string | undefined;
  databaseUrl?: string | undefined;
  /** Each entry may itself be a comma-separated list. */
  workerUrls?: readonly string[] | undefined;
  nodeId?: string | undefined;
  /** `on` or `off` (also `true`/`false`, `1`/`0`). */
  warmUp?: string | undefined;
};

export class DistributedConfigError extends Error {
  override readonly name = "DistributedConfigError";
  readonly code = "invalid_distributed_config";
}

const urlWithScheme = (schemes: readonly string[], label: string) =>
  z.string().refine(
    (value) => {
      try {
        const url = new URL(value);
        return schemes.includes(url.protocol) && url.hostname !== "";
      } catch {
        return false;
      }
    },
    `${label} must be a ${schemes.map((scheme) => `${scheme}//`).join(" or ")} URL with a host`,
  );

const redisUrlSchema = urlWithScheme(["redis:", "rediss:"], "the Redis URL");
const databaseUrlSchema = urlWithScheme(["postgres:", "postgresql:"], "the database URL");
const workerUrlSchema = urlWithScheme(["ws:", "wss:"], "a worker URL");
const nodeIdSchema = z
  .string()
  .min(1)
  .max(100)
  .regex(/^[A-Za-z0-9][A-Za-z0-9._:-]*$/, "the node id may hold letters, digits, '.', '_', ':' and '-'");

/** Splits repeated and comma-separated worker URLs into one list, without blanks or repeats. */
export function splitWorkerUrls(values: readonly string[]): string[] {
  const urls = values.flatMap((value) => value.split(",")).map((entry) => entry.trim());
  return [...new Set(urls.filter((entry) => entry !== ""))];
}

/**
 * The distributed configuration from flags (`primary`) and environment (`fallback`), or undefined when
 * nothing distributed is configured (a node id alone changes nothing). Bad values are refused with
 * the setting's name, never half-applied.
 */
export function resolveDistributedConfig(
  primary: DistributedSettings,
  fallback: DistributedSettings,
  defaultNodeId: () => string,
): DistributedConfig | undefined {
  const redisUrl = nonEmpty(primary.redisUrl) ?? nonEmpty(fallback.redisUrl);
  const databaseUrl = nonEmpty(primary.databaseUrl) ?? nonEmpty(fallback.databaseUrl);
  const fromFlags = splitWorkerUrls(primary.workerUrls ?? []);
  const workerUrls = fromFlags.length > 0 ? fromFlags : splitWorkerUrls(fallback.workerUrls ?? []);
  const nodeId = nonEmpty(primary.nodeId) ?? nonEmpty(fallback.nodeId) ?? defaultNodeId();
  const warmUp = onOff(nonEmpty(primary.warmUp) ?? nonEmpty(fallback.warmUp) ?? "on", "--warm-up / CAIRN_WARM_UP");
  if (redisUrl === undefined && databaseUrl === undefined && workerUrls.length === 0) {
    check(nodeIdSchema, nodeId, "--node-id / CAIRN_NODE_ID");
    return undefined;
  }
  if (redisUrl !== undefined) check(redisUrlSchema, redisUrl, "--redis-url / CAIRN_REDIS_URL");
  if (databaseUrl !== undefined) check(databaseUrlSchema, databaseUrl, "--database-url / CAIRN_DATABASE_URL");
  for (const url of workerUrls) check(workerUrlSchema, url, "--worker-url / CAIRN_WORKER_URL");
  check(nodeIdSchema, nodeId, "--node-id / CAIRN_NODE_ID");
  return { redisUrl, databaseUrl, workerUrls, nodeId, warmUp };
}

/** A URL for logs and messages: the password replaced by `***`. */
export function redactUrl(value: string): string {
  try {
    const url = new URL(value);
    if (url.password !== "") url.password = "***";
    return url.toString();
  } catch {
    return "(invalid URL)";
  }
}

function onOff(value: string, setting: string): boolean {
  const normal = value.toLowerCase();
  if (["on", "true", "1"].includes(normal)) return true;
  if (["off", "false", "0"].includes(normal)) return false;
  throw new DistributedConfigError(`${setting}: must be on or off (got "${value.slice(0, 20)}")`);
}

function nonEmpty(value: string | undefined): string | undefined {
  const trimmed = value?.trim();
  return trimmed === undefined || trimmed === "" ? undefined : trimmed;
}

function check(schema: z.ZodType<string>, value: string, setting: string): void {
  const parsed = schema.safeParse(value);
  if (!parsed.success) {
    const reason = parsed.error.issues[0]?.message ?? "invalid";
    // The value is shown without its password, and not at all when it does not parse (it may hold one).
    throw new DistributedConfigError(`${setting}: ${reason} (got ${setting.startsWith("--node-id") ? `"${value.slice(0, 100)}"` : redactUrl(value)})`);
  }
}
