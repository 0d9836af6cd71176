import { z } from "zod";
import { abortableSleep } from "../loop/deps.ts";
import type { HookDispatcher } from "../hooks/port.ts";
import { defaultRetryPolicy, type RetryPolicy } from "../model/retry.ts";
import type { TodoItem } from "../schema/events.ts";
import type { AppState } from "../state/app-state.ts";
import type { ReadFileForCompaction, RecentFilesPolicy } from "./attachments.ts";
import { CompactionError } from "./errors.ts";
import { DEFAULT_PROMPT_CACHE_TTL_MS } from "./prompt-cache.ts";
import type { KeepPolicy } from "./split.ts";
import { contextLimitOptionsSchema, type ContextLimits } from "./tokens.ts";
import { DEFAULT_CLEARABLE_TOOLS } from "./tool-result-pruning.ts";

/**
 * The tunable numbers as they are when nothing sets them: the schema below takes its defaults from here (each field's
 * and each group's; a test compares the two), and a compactor made without any setting (a `cairn -p` run without
 * `CAIRN_AUTOCOMPACT_PCT` and the like) starts from a copy of these and never builds the schema.
 */
const DEFAULTS = {
  autoCompact: true,
  snip: { budgetRatio: 0.5, targetRatio: 0.75, minResultTokens: 1_000 },
  microcompact: { triggerRatio: 0.75, keepRecentTurns: 5, minSavingsTokens: 2_000, minResultTokens: 50, tools: [...DEFAULT_CLEARABLE_TOOLS], whileWarm: false },
  timeBasedMicrocompact: { cacheTtlMs: DEFAULT_PROMPT_CACHE_TTL_MS, keepRecentTurns: 5 },
  collapse: false as const,
  keep: { turns: 3, tokenRatio: 0.25 },
  recentFiles: { maxFiles: 5, maxCharsPerFile: 20_000, maxTotalChars: 100_000, thresholdRatio: 0.15, readToolName: "Read" },
  summary: { maxOutputTokens: 20_000, maxToolResultChars: 20_000, maxPromptTooLongRetries: 3 },
  maxConsecutiveFailures: 3,
};

/**
 * The tunable numbers, validated once when the compactor is made (some come from the environment). Built at its first
 * use, not when the module loads: some 120 zod schemas that a compactor made with the defaults never needs.
 */
function buildCompactorSettingsSchema() {
  const fraction = z.number().positive().max(1);
  const count = z.number().int().nonnegative();
  return contextLimitOptionsSchema.extend({
    /** Auto-compaction on or off; manual and reactive compaction always work. */
    autoCompact: z.boolean().default(DEFAULTS.autoCompact),
    snip: z
      .union([
        z.literal(false),
        z.object({
          /** Tool results may use this fraction of the auto-compact threshold before the oldest are snipped. */
          budgetRatio: fraction.default(DEFAULTS.snip.budgetRatio),
          targetRatio: fraction.default(DEFAULTS.snip.targetRatio),
          minResultTokens: count.default(DEFAULTS.snip.minResultTokens),
        }),
      ])
      .default(DEFAULTS.snip),
    microcompact: z
      .union([
        z.literal(false),
        z.object({
          /** Runs once the context passes this fraction of the auto-compact threshold. */
          triggerRatio: fraction.default(DEFAULTS.microcompact.triggerRatio),
          keepRecentTurns: count.default(DEFAULTS.microcompact.keepRecentTurns),
          minSavingsTokens: count.default(DEFAULTS.microcompact.minSavingsTokens),
          minResultTokens: count.default(DEFAULTS.microcompact.minResultTokens),
          tools: z.array(z.string()).default([...DEFAULTS.microcompact.tools]),
          /**
           * Also clear near the threshold while the prompt cache is warm (each pass then breaks it once).
           * Off by default: with a warm cache nothing is rewritten; once it has expired, the time-based pass clears.
           */
          whileWarm: z.boolean().default(DEFAULTS.microcompact.whileWarm),
        }),
      ])
      .default(() => ({ ...DEFAULTS.microcompact, tools: [...DEFAULTS.microcompact.tools] })),
    /**
     * Time-based micro-compact: once the prompt cache has certainly expired (no request for longer than its
     * TTL), old tool results are cleared, since there is no cached prefix left to protect.
     */
    timeBasedMicrocompact: z
      .union([
        z.literal(false),
        z.object({
          cacheTtlMs: z.number().int().positive().default(DEFAULTS.timeBasedMicrocompact.cacheTtlMs),
          /** Results of calls made in the last this-many responses stay as they are. */
          keepRecentTurns: count.default(DEFAULTS.timeBasedMicrocompact.keepRecentTurns),
        }),
      ])
      .default(DEFAULTS.timeBasedMicrocompact),
    /** Context collapse (off unless asked for): older spans summarised and staged, committed when the context is nearly full. */
    collapse: z
      .union([
        z.literal(false),
        z.object({
          stageRatio: fraction.default(0.85),
          commitRatio: fraction.default(0.95),
          keepRecentTurns: count.default(3),
          minSpanTokens: count.default(500),
        }),
      ])
      .default(false),
    keep: z
      .object({
        /** Recent responses kept verbatim after the summary. */
        turns: count.default(DEFAULTS.keep.turns),
        /** … within this fraction of the threshold. */
        tokenRatio: fraction.default(DEFAULTS.keep.tokenRatio),
      })
      .default(DEFAULTS.keep),
    recentFiles: z
      .object({
        maxFiles: count.default(DEFAULTS.recentFiles.maxFiles),
        maxCharsPerFile: count.default(DEFAULTS.recentFiles.maxCharsPerFile),
        maxTotalChars: count.default(DEFAULTS.recentFiles.maxTotalChars),
        /** At most this fraction of the threshold goes to re-attached files. */
        thresholdRatio: fraction.default(DEFAULTS.recentFiles.thresholdRatio),
        readToolName: z.string().default(DEFAULTS.recentFiles.readToolName),
      })
      .default(DEFAULTS.recentFiles),
    summary: z
      .object({
        model: z.string().optional(),
        maxOutputTokens: z.number().int().positive().default(DEFAULTS.summary.maxOutputTokens),
        maxToolResultChars: z.number().int().positive().default(DEFAULTS.summary.maxToolResultChars),
        maxPromptTooLongRetries: count.default(DEFAULTS.summary.maxPromptTooLongRetries),
      })
      .default(DEFAULTS.summary),
    /** Auto-compaction failures in a row that trip the breaker. */
    maxConsecutiveFailures: z.number().int().positive().default(DEFAULTS.maxConsecutiveFailures),
    /** The task's token budget, tracked across compactions (reference design §1.6). */
    taskBudget: z.object({ total: z.number().int().nonnegative() }).optional(),
  });
}

let compactorSettingsSchemaBuilt: ReturnType<typeof buildCompactorSettingsSchema> | undefined;
export function compactorSettingsSchema(): ReturnType<typeof buildCompactorSettingsSchema> {
  compactorSettingsSchemaBuilt ??= buildCompactorSettingsSchema();
  return compactorSettingsSchemaBuilt;
}

export type CompactorSettings = z.infer<ReturnType<typeof buildCompactorSettingsSchema>>;

/** Everything `createCompactor` takes: the settings plus the side effects, injected. */
export type CompactorOptions = z.input<ReturnType<typeof buildCompactorSettingsSchema>> & {
  /** PreCompact hooks run before each summary. */
  hooks?: HookDispatcher;
  /** The todo list to re-attach after a compaction; defaults to the app state's. */
  getTodos?: () => readonly TodoItem[];
  /** Where the breaker lives (`compaction` in the app state); without them the compactor keeps it itself. */
  getAppState?: () => AppState;
  setAppState?: (update: (state: AppState) => AppState) => void;
  /** Current contents of recently read files; without it, what the last Read returned is re-attached. */
  readFile?: ReadFileForCompaction;
  /** Retry policy of the summary call (the loop's is not visible to the compactor). */
  retry?: RetryPolicy;
  uuid?: () => string;
  now?: () => number;
  random?: () => number;
  sleep?: (ms: number, signal: AbortSignal) => Promise<void>;
};

export type CompactorDeps = {
  hooks: HookDispatcher | undefined;
  getTodos: () => readonly TodoItem[];
  readFile: ReadFileForCompaction | undefined;
  retry: RetryPolicy;
  uuid: () => string;
  now: () => number;
  random: () => number;
  sleep: (ms: number, signal: AbortSignal) => Promise<void>;
};

/** Every key of the settings (the schema's own and its context limits'); a test holds this to the schema's shape. */
export const COMPACTOR_SETTING_KEYS = ["contextWindow", "reservedOutputTokens", "bufferTokens", "autoCompactPct", ...Object.keys(DEFAULTS), "taskBudget"];

export function parseCompactorSettings(options: CompactorOptions): CompactorSettings {
  // Nothing set: the defaults, as the schema would give them, without building it.
  if (COMPACTOR_SETTING_KEYS.every((key) => (options as Record<string, unknown>)[key] === undefined)) return structuredClone(DEFAULTS) as CompactorSettings;
  const parsed = compactorSettingsSchema().safeParse(options);
  if (!parsed.success) {
    const problems = parsed.error.issues.map((issue) => `${issue.path.join(".") || "options"}: ${issue.message}`).join("; ");
    throw new CompactionError("invalid_config", `Invalid compactor options: ${problems}`, { cause: parsed.error });
  }
  return parsed.data;
}

export function compactorDeps(options: CompactorOptions): CompactorDeps {
  const { getAppState } = options;
  return {
    hooks: options.hooks,
    getTodos: options.getTodos ?? (getAppState ? () => getAppState().todos : () => []),
    readFile: options.readFile,
    retry: options.retry ?? defaultRetryPolicy,
    uuid: options.uuid ?? (() => globalThis.crypto.randomUUID()),
    now: options.now ?? Date.now,
    random: options.random ?? Math.random,
    sleep: options.sleep ?? abortableSleep,
  };
}

export function keepPolicy(settings: CompactorSettings, limits: ContextLimits): KeepPolicy {
  return { keepTurns: settings.keep.turns, keepTokens: Math.floor(limits.threshold * settings.keep.tokenRatio) };
}

export function recentFilesPolicy(settings: CompactorSettings, limits: ContextLimits): RecentFilesPolicy {
  const files = settings.recentFiles;
  const maxTotalChars = Math.min(files.maxTotalChars, Math.floor(limits.threshold * 4 * files.thresholdRatio));
  return { maxFiles: files.maxFiles, maxCharsPerFile: Math.min(files.maxCharsPerFile, maxTotalChars), maxTotalChars, readToolName: files.readToolName };
}
