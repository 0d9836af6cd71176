import type { AgentEvent } from "../schema/events.ts";
import { appStateStatusStore, localStatusStore, type CompactionStatus } from "./compaction-status.ts";
import type { ConversationMessage } from "../schema/messages.ts";
import { compactedTokensOf } from "./compacted-tokens.ts";
import { compactConversation, type CompactionOutcome } from "./compact-conversation.ts";
import { compactorDeps, parseCompactorSettings, type CompactorOptions } from "./compactor-options.ts";
import { createContextCollapse, type CollapseOutcome } from "./context-collapse.ts";
import type { CompactionError, CompactionErrorCode } from "./errors.ts";
import type { BlockingLimit, CompactionInput, CompactionResult, Compactor } from "./port.ts";
import {
  countContextTokens,
  estimateSystemPromptTokens,
  resolveContextLimits,
  usageFromCount,
  type ContextLimits,
  type ContextUsage,
  type TokenCount,
} from "./tokens.ts";
import { DEFAULT_PROMPT_CACHE_TTL_MS, promptCacheState } from "./prompt-cache.ts";
import { DEFAULT_CLEARABLE_TOOLS, microcompactToolResults, snipToolResults, type PruneOutcome } from "./tool-result-pruning.ts";
import type { CompactTrigger } from "./types.ts";

export type CompactorState = CompactionStatus & {
  /** What is left of the task budget once compacted-away context is charged to it; undefined without a budget. */
  taskBudgetRemaining: number | undefined;
  compactions: number;
  lastError: { code: CompactionErrorCode; message: string } | null;
  /** Context collapse: spans summarised and waiting, and spans replaced by their summaries. */
  collapses: { staged: number; committed: number };
};

/** `/compact`: either the compaction to apply and persist, or why it did not happen (the conversation is unchanged). */
export type ManualCompaction = { ok: true; result: CompactionResult } | { ok: false; error: CompactionError; events: AgentEvent[] };

export type ContextUsageInput = Pick<CompactionInput, "messages" | "model" | "systemPrompt"> & { lastInputTokens?: number | null };

export interface CairnCompactor extends Compactor {
  /** Compacts now, whatever the size (trigger "manual"); `instructions` are added to the summary prompt. */
  compactNow(input: CompactionInput, options?: { instructions?: string }): Promise<ManualCompaction>;
  blockingLimit(input: CompactionInput): BlockingLimit | null;
  /** Cairn's compactor always has the collapse stage (it returns null while `contextCollapse` is off). */
  collapse(input: CompactionInput): Promise<CompactionResult | null>;
  drainCollapses(input: CompactionInput): Promise<CompactionResult | null>;
  taskBudget(conversation?: readonly ConversationMessage[]): { total: number; remaining: number | undefined } | undefined;
  /** For the context meter. */
  contextUsage(input: ContextUsageInput): ContextUsage;
  getState(): CompactorState;
}

/**
 * Cairn's compaction stages for the loop (`QueryDeps.compactor`), plus `/compact`:
 * - snip drops the oldest bulky tool results once they pass their budget;
 * - micro-compact clears stale tool results once the prompt cache has expired (idle past its TTL); while the
 *   cache is warm it rewrites nothing (unless `whileWarm`, then near the threshold);
 * - collapse (when on) stages short summaries of older spans and commits them when the context is
 *   nearly full; `drainCollapses` commits them at once after a prompt-too-long answer;
 * - auto-compact replaces the older conversation with a model-written summary past the threshold;
 * - reactive does the same, forced, after the API said the prompt was too long.
 * Failed auto-compactions are counted; after `maxConsecutiveFailures` in a row the breaker pauses
 * auto-compaction (a `notice` says so) until a manual or reactive compaction succeeds.
 */
export function createCompactor(options: CompactorOptions = {}): CairnCompactor {
  const settings = parseCompactorSettings(options);
  const deps = compactorDeps(options);
  const status = options.getAppState && options.setAppState ? appStateStatusStore(options.getAppState, options.setAppState) : localStatusStore();
  /** Tokens snip and micro-compact removed from what the latest response's usage counted. */
  let freed: { anchorUuid: string; tokens: number } | undefined;
  /** Tool results pruned and collapses applied once: doing it again (a reloaded history) frees nothing the usage counted. */
  const pruned = new Set<string>();
  let taskBudgetRemaining: number | undefined;
  /** The context compacted away in this conversation (earlier runs' included, once a compaction here has read them). */
  let compactedTokens = 0;
  let compactions = 0;
  let lastError: CompactorState["lastError"] = null;

  const measure = (input: ContextUsageInput): TokenCount =>
    countContextTokens({
      messages: input.messages,
      systemPrompt: input.systemPrompt,
      lastInputTokens: input.lastInputTokens ?? null,
      ...(freed ? { freed } : {}),
    });

  const limitsByModel = new Map<string, ContextLimits>();
  const limitsFor = (model: string): ContextLimits => {
    let limits = limitsByModel.get(model);
    if (!limits) {
      limits = resolveContextLimits(model, settings);
      limitsByModel.set(model, limits);
    }
    return limits;
  };

  /** Counts tokens removed from messages the last response's usage counted; `key`s seen before (a reloaded history) free nothing new. */
  const addFreed = (input: CompactionInput, removed: ReadonlyArray<{ key: string; freedTokens: number }>) => {
    const anchorUuid = measure(input).anchorUuid;
    const fresh = removed.filter((entry) => !pruned.has(entry.key));
    for (const entry of removed) pruned.add(entry.key);
    if (anchorUuid === null) return;
    const before = freed?.anchorUuid === anchorUuid ? freed.tokens : 0;
    freed = { anchorUuid, tokens: before + fresh.reduce((sum, entry) => sum + entry.freedTokens, 0) };
  };

  const prune = (
    input: CompactionInput,
    outcome: PruneOutcome | null,
    notice: (count: number, tokens: number) => string,
    code: string,
  ): CompactionResult | null => {
    if (!outcome) return null;
    addFreed(
      input,
      outcome.pruned.map((entry) => ({ key: entry.toolUseId, freedTokens: entry.freedTokens })),
    );
    const message = notice(outcome.pruned.length, outcome.freedTokens);
    return { messages: outcome.messages, added: [], events: [{ type: "notice", level: "info", code, message }] };
  };

  const compact = async (
    input: CompactionInput,
    trigger: CompactTrigger,
    instructions: string | undefined,
    count: TokenCount,
    limits: ContextLimits,
  ): Promise<CompactionOutcome> => {
    const compactedAfter = (compactedTokensOf(input.messages) ?? compactedTokens) + count.tokens;
    const outcome = await compactConversation({
      input,
      trigger,
      instructions,
      preTokens: count.tokens,
      compactedTokens: compactedAfter,
      overheadTokens: estimateSystemPromptTokens(input.systemPrompt),
      limits,
      settings,
      deps,
    });
    if (!outcome.ok) {
      lastError = { code: outcome.error.code, message: outcome.error.message };
      return outcome;
    }
    compactions++;
    lastError = null;
    freed = undefined;
    status.set(() => ({ consecutiveFailures: 0, breakerTripped: false }));
    compactedTokens = compactedAfter;
    // The server sees only the summary from now on; the context compacted away was still spent.
    if (settings.taskBudget) taskBudgetRemaining = Math.max(0, settings.taskBudget.total - compactedTokens);
    return outcome;
  };

  const unchanged = (input: CompactionInput, events: AgentEvent[]): CompactionResult => ({ messages: input.messages, added: [], events });

  const collapses = settings.collapse === false ? null : createContextCollapse(settings.collapse, deps.uuid);
  const collapsed = (input: CompactionInput, outcome: CollapseOutcome | null, drained: boolean): CompactionResult | null => {
    if (!outcome) return null;
    addFreed(
      input,
      outcome.applied.map((entry) => ({ key: entry.collapse.id, freedTokens: entry.freedTokens })),
    );
    const fresh = outcome.applied.slice(outcome.applied.length - outcome.newlyCommitted);
    const tokens = fresh.reduce((sum, entry) => sum + entry.freedTokens, 0);
    const spans = fresh.length;
    const events: AgentEvent[] =
      spans === 0
        ? []
        : [
            {
              type: "notice",
              level: "info",
              code: drained ? "compact_collapse_drain" : "compact_collapse",
              message: `${drained ? "The request was too long: c" : "C"}ollapsed ${spans} older span${spans === 1 ? "" : "s"} of the conversation into short summaries (about ${tokens.toLocaleString("en-US")} tokens freed).`,
            },
          ];
    return { messages: outcome.messages, added: [], events };
  };

  return {
    async snip(input) {
      if (settings.snip === false) return null;
      const limits = limitsFor(input.model);
      measure(input);
      const outcome = snipToolResults(input.messages, {
        budgetTokens: Math.floor(limits.threshold * settings.snip.budgetRatio),
        targetRatio: settings.snip.targetRatio,
        minResultTokens: settings.snip.minResultTokens,
      });
      return prune(
        input,
        outcome,
        (count, tokens) =>
          `Snipped ${count} old tool result${count === 1 ? "" : "s"} (about ${tokens.toLocaleString("en-US")} tokens) to keep the context small.`,
        "compact_snip",
      );
    },

    async microcompact(input) {
      const micro = settings.microcompact;
      const timed = settings.timeBasedMicrocompact;
      const cache = promptCacheState(input.messages, deps.now(), timed === false ? DEFAULT_PROMPT_CACHE_TTL_MS : timed.cacheTtlMs);
      if (cache.state === "cold" && timed !== false) {
        const minutes = Math.floor(cache.idleMs / 60_000);
        const outcome = microcompactToolResults(input.messages, {
          keepRecentTurns: timed.keepRecentTurns,
          minSavingsTokens: 0,
          minResultTokens: micro === false ? 50 : micro.minResultTokens,
          tools: micro === false ? DEFAULT_CLEARABLE_TOOLS : micro.tools,
        });
        const cleared = prune(
          input,
          outcome,
          (count, tokens) =>
            `The prompt cache has expired (idle ${minutes} min): cleared ${count} old tool result${count === 1 ? "" : "s"} (about ${tokens.toLocaleString("en-US")} tokens).`,
          "compact_micro_time",
        );
        if (cleared) return cleared;
      }
      if (micro === false) return null;
      // A warm cache is worth more than the tokens: rewriting an old result would make the next request pay for the whole prefix again.
      if (cache.state === "warm" && !micro.whileWarm) return null;
      const limits = limitsFor(input.model);
      if (measure(input).tokens < limits.threshold * micro.triggerRatio) return null;
      const outcome = microcompactToolResults(input.messages, micro);
      return prune(
        input,
        outcome,
        (count, tokens) => `Cleared ${count} stale tool result${count === 1 ? "" : "s"} from older turns (about ${tokens.toLocaleString("en-US")} tokens).`,
        "compact_micro",
      );
    },

    async collapse(input) {
      if (!collapses) return null;
      const limits = limitsFor(input.model);
      return collapsed(input, collapses.run(input.messages, measure(input).tokens, limits.threshold), false);
    },

    async drainCollapses(input) {
      return collapses ? collapsed(input, collapses.drain(input.messages), true) : null;
    },

    async autocompact(input) {
      if (!settings.autoCompact || status.get().breakerTripped) return null;
      const limits = limitsFor(input.model);
      const count = measure(input);
      if (count.tokens < limits.threshold) return null;
      const outcome = await compact(input, "auto", undefined, count, limits);
      if (outcome.ok) return outcome.result;
      const { error, events } = outcome;
      switch (error.code) {
        case "aborted":
        case "nothing_to_compact":
          return null;
        case "hook_blocked":
          return unchanged(input, [...events, { type: "notice", level: "warning", code: "compact_blocked", message: error.message }]);
        default: {
          let next: CompactionStatus = { consecutiveFailures: 0, breakerTripped: false };
          status.set((current) => {
            const failures = current.consecutiveFailures + 1;
            next = { consecutiveFailures: failures, breakerTripped: failures >= settings.maxConsecutiveFailures };
            return next;
          });
          // A failed summary loses nothing: the conversation goes on uncompacted.
          if (!next.breakerTripped) return null;
          return unchanged(input, [
            ...events,
            {
              type: "notice",
              level: "warning",
              code: "compact_breaker_tripped",
              message: `Auto-compaction failed ${next.consecutiveFailures} times in a row (last: ${error.message}). It is paused for this session; run /compact to try again.`,
            },
          ]);
        }
      }
    },

    async reactive(input) {
      const outcome = await compact(input, "reactive", undefined, measure(input), limitsFor(input.model));
      return outcome.ok ? outcome.result : null;
    },

    async compactNow(input, manual = {}) {
      const outcome = await compact(input, "manual", manual.instructions, measure(input), limitsFor(input.model));
      return outcome.ok ? { ok: true, result: outcome.result } : { ok: false, error: outcome.error, events: outcome.events };
    },

    blockingLimit(input) {
      // While auto-compaction can still run, it is what makes room; only without it is a request doomed.
      if (settings.autoCompact && !status.get().breakerTripped) return null;
      const limits = limitsFor(input.model);
      const count = measure(input);
      if (count.tokens < limits.blockingLimit) return null;
      const why = settings.autoCompact ? "auto-compaction is paused after repeated failures" : "auto-compaction is off";
      return {
        tokens: count.tokens,
        limit: limits.blockingLimit,
        message: `The conversation is too long to send (about ${count.tokens.toLocaleString("en-US")} tokens; the limit is ${limits.blockingLimit.toLocaleString("en-US")}) and ${why}. Run /compact to summarise it, or start a new session.`,
      };
    },

    contextUsage(input) {
      return usageFromCount(measure(input), limitsFor(input.model));
    },

    taskBudget(conversation) {
      if (!settings.taskBudget) return undefined;
      const total = settings.taskBudget.total;
      const spent = (conversation ? compactedTokensOf(conversation) : undefined) ?? (compactions > 0 ? compactedTokens : undefined);
      return { total, remaining: spent === undefined ? undefined : Math.max(0, total - spent) };
    },

    getState() {
      return { ...status.get(), taskBudgetRemaining, compactions, lastError, collapses: collapses?.state() ?? { staged: 0, committed: 0 } };
    },
  };
}

/** `/compact [instructions]` for callers holding the session's compactor (the CLI, the API). */
export function compactNow(compactor: CairnCompactor, input: CompactionInput, options: { instructions?: string } = {}): Promise<ManualCompaction> {
  return compactor.compactNow(input, options);
}
