import { homedir } from "node:os";
import { join } from "node:path";
import { z } from "zod";
// Not the telemetry index: that would initialise the OpenTelemetry API at every start, telemetry on or off.
import { telemetryConfigFromEnv, type TelemetryConfig } from "@cairn/api/telemetry-config";

/**
 * The only place the CLI reads `process.env`. Each variable's schema is built only when the variable is set: building
 * zod schemas is a cost every start pays, and most of these are unset.
 */
const envVariables = {
  ANTHROPIC_API_KEY: () => z.string().min(1),
  ANTHROPIC_BASE_URL: () => z.string().url(),
  CAIRN_HOME: () => z.string().min(1),
  CAIRN_MODEL: () => z.string().min(1),
  CAIRN_FALLBACK_MODEL: () => z.string().min(1),
  CAIRN_TOKEN: () => z.string().min(16),
  CAIRN_ALLOWED_HOSTS: () => z.string(),
  CAIRN_SHARE_STREAMS: () => z.string().regex(/^\d{1,6}\/\d{1,6}\/\d{1,6}$/, "perClient/perShare/total, e.g. 4/20/100"),
  CAIRN_MAX_TOOL_USE_CONCURRENCY: () => z.coerce.number().int().min(1).max(64),
  CAIRN_DISABLE_PROMPT_CACHING: () => z.enum(["0", "1", "true", "false"]),
  CAIRN_MAX_THINKING_TOKENS: () =>
    z.coerce
      .number()
      .int()
      .refine((value) => value === 0 || value >= 1024, "0 (thinking off) or a budget of at least 1024 tokens"),
  CAIRN_DUMP_PROMPTS: () => z.enum(["0", "1", "true", "false"]),
  CAIRN_MAX_RETRIES: () => z.coerce.number().int().min(1).max(20),
  CAIRN_CONTEXT_WINDOW: () => z.coerce.number().int().min(1_000),
  CAIRN_AUTOCOMPACT_PCT: () => z.coerce.number().min(1).max(100),
  CAIRN_DISABLE_AUTOCOMPACT: () => z.enum(["0", "1", "true", "false"]),
  /** bin/cairn.js runs the TypeScript sources (development): the local worker process then runs its sources too. */
  CAIRN_DEV: () => z.string(),
  // Distributed mode: validated with the matching flags by @cairn/api's resolveDistributedConfig.
  CAIRN_REDIS_URL: () => z.string(),
  CAIRN_DATABASE_URL: () => z.string(),
  CAIRN_WORKER_URL: () => z.string(),
  CAIRN_NODE_ID: () => z.string(),
  CAIRN_WARM_UP: () => z.string(),
  /** The shared secret between API nodes and `cairn worker --listen` hosts. */
  CAIRN_WORKER_TOKEN: () => z.string().min(16, "use at least 16 characters (e.g. `openssl rand -hex 32`)"),
} satisfies Record<string, () => z.ZodType>;

type EnvVariableName = keyof typeof envVariables;
type EnvVariables = { [Name in EnvVariableName]?: z.output<ReturnType<(typeof envVariables)[Name]>> };

/** The set variables Cairn reads, checked; unknown ones are left out. */
function parseEnvVariables(present: Record<string, string>): EnvVariables {
  const names = Object.keys(present).filter((name): name is EnvVariableName => Object.hasOwn(envVariables, name));
  const parsed = z.object(Object.fromEntries(names.map((name) => [name, envVariables[name]()]))).safeParse(present);
  if (!parsed.success) {
    const problems = parsed.error.issues.map((issue) => `  ${issue.path.join(".")}: ${issue.message}`).join("\n");
    throw new Error(`Invalid environment:\n${problems}`);
  }
  return parsed.data as EnvVariables;
}

export type CliEnv = {
  /** CAIRN_ENABLE_TELEMETRY=1 with the standard OTEL_* variables; undefined when telemetry is off. */
  telemetry: TelemetryConfig | undefined;
  apiKey: string | undefined;
  baseURL: string | undefined;
  cairnHome: string;
  model: string | undefined;
  fallbackModel: string | undefined;
  token: string | undefined;
  /** CAIRN_WORKER_TOKEN: required by `cairn worker --listen`, and sent by API nodes to remote workers. */
  workerToken: string | undefined;
  /** Extra host names `cairn serve` answers to (comma-separated `CAIRN_ALLOWED_HOSTS`). */
  allowedHosts: string[];
  /** Open live-share streams at once (`CAIRN_SHARE_STREAMS=perClient/perShare/total`), undefined for the defaults. */
  shareStreams: { perClient: number; perShare: number; total: number } | undefined;
  maxToolConcurrency: number;
  promptCaching: boolean;
  /** CAIRN_MAX_THINKING_TOKENS: 0 turns thinking off, more sets a budget; undefined follows the `thinking` setting. */
  maxThinkingTokens: number | undefined;
  /** CAIRN_DUMP_PROMPTS=1: the latest request body of each conversation is kept under $CAIRN_HOME/debug/. */
  dumpPrompts: boolean;
  maxRetries: number | undefined;
  contextWindow: number | undefined;
  autoCompactPct: number | undefined;
  /** False with `CAIRN_DISABLE_AUTOCOMPACT=1`: only /compact summarises, and an over-long conversation stops at the blocking limit. */
  autoCompact: boolean;
  /** CAIRN_DEV=1: `cairn` runs from its TypeScript sources, not its bundle. */
  dev: boolean;
  /** Distributed mode as the environment gives it (`CAIRN_REDIS_URL`, `CAIRN_DATABASE_URL`, `CAIRN_WORKER_URL`, `CAIRN_NODE_ID`). */
  distributed: { redisUrl: string | undefined; databaseUrl: string | undefined; workerUrls: string[]; nodeId: string | undefined; warmUp: string | undefined };
};

export function readEnv(source: Record<string, string | undefined> = process.env): CliEnv {
  const present = Object.fromEntries(Object.entries(source).filter((entry): entry is [string, string] => entry[1] !== undefined && entry[1] !== ""));
  const env = parseEnvVariables(present);
  return {
    telemetry: telemetryConfigFromEnv(source),
    apiKey: env.ANTHROPIC_API_KEY,
    baseURL: env.ANTHROPIC_BASE_URL,
    cairnHome: env.CAIRN_HOME ?? join(homedir(), ".cairn"),
    model: env.CAIRN_MODEL,
    fallbackModel: env.CAIRN_FALLBACK_MODEL,
    token: env.CAIRN_TOKEN,
    workerToken: env.CAIRN_WORKER_TOKEN,
    allowedHosts: (env.CAIRN_ALLOWED_HOSTS ?? "")
      .split(",")
      .map((entry) => entry.trim())
      .filter((entry) => entry !== ""),
    shareStreams: shareStreamLimits(env.CAIRN_SHARE_STREAMS),
    maxToolConcurrency: env.CAIRN_MAX_TOOL_USE_CONCURRENCY ?? 10,
    promptCaching: !(env.CAIRN_DISABLE_PROMPT_CACHING === "1" || env.CAIRN_DISABLE_PROMPT_CACHING === "true"),
    maxThinkingTokens: env.CAIRN_MAX_THINKING_TOKENS,
    dumpPrompts: env.CAIRN_DUMP_PROMPTS === "1" || env.CAIRN_DUMP_PROMPTS === "true",
    maxRetries: env.CAIRN_MAX_RETRIES,
    contextWindow: env.CAIRN_CONTEXT_WINDOW,
    autoCompactPct: env.CAIRN_AUTOCOMPACT_PCT,
    autoCompact: !(env.CAIRN_DISABLE_AUTOCOMPACT === "1" || env.CAIRN_DISABLE_AUTOCOMPACT === "true"),
    dev: env.CAIRN_DEV === "1",
    distributed: {
      redisUrl: env.CAIRN_REDIS_URL,
      databaseUrl: env.CAIRN_DATABASE_URL,
      workerUrls: env.CAIRN_WORKER_URL === undefined ? [] : [env.CAIRN_WORKER_URL],
      nodeId: env.CAIRN_NODE_ID,
      warmUp: env.CAIRN_WARM_UP,
    },
  };
}

function shareStreamLimits(value: string | undefined): CliEnv["shareStreams"] {
  if (value === undefined) return undefined;
  const [perClient = 0, perShare = 0, total = 0] = value.split("/").map(Number);
  return { perClient, perShare, total };
}

/** The environment for child processes the CLI starts (`next build`): the process's own, plus `extra`. */
export function childProcessEnv(extra: Record<string, string> = {}): Record<string, string | undefined> {
  return { ...process.env, ...extra };
}

/** `cairn serve` runs Next's production server in-process; like `next start`, it needs NODE_ENV=production. */
export function useProductionNodeEnv(): void {
  process.env.NODE_ENV = "production";
}
