import { z } from "zod";
import { messagesAfterCompactBoundary } from "../loop/messages.ts";
import type { ContentBlock } from "../schema/content.ts";
import type { AssistantMessage, ConversationMessage } from "../schema/messages.ts";
import type { Usage } from "../schema/usage.ts";
import { isKeptCopy, lastIndexWhere } from "./conversation.ts";
import { CompactionError } from "./errors.ts";

/** What one image costs, roughly, whatever its size (the API scales images down). */
export const IMAGE_TOKEN_ESTIMATE = 2_000;
export const DEFAULT_CONTEXT_WINDOW = 200_000;
/** Kept free for the model's answer (and the summary itself): Claude Code's 20k. */
export const DEFAULT_RESERVED_OUTPUT_TOKENS = 20_000;
/** Head room below the effective window, so compaction runs before the API refuses. */
export const DEFAULT_BUFFER_TOKENS = 13_000;

export function estimateTextTokens(text: string): number {
  return Math.ceil(text.length / 4);
}

function blockCost(block: ContentBlock | { type: string; [key: string]: unknown }): { chars: number; images: number } {
  switch (block.type) {
    case "text":
      return { chars: String((block as { text: unknown }).text ?? "").length, images: 0 };
    case "thinking":
      return { chars: String((block as { thinking: unknown }).thinking ?? "").length, images: 0 };
    case "redacted_thinking":
      return { chars: String((block as { data: unknown }).data ?? "").length, images: 0 };
    case "tool_use": {
      const use = block as { name: string; input: unknown };
      return { chars: use.name.length + JSON.stringify(use.input ?? {}).length, images: 0 };
    }
    case "image":
      return { chars: 0, images: 1 };
    case "tool_result": {
      const content = (block as { content?: unknown }).content;
      if (content === undefined) return { chars: 0, images: 0 };
      if (typeof content === "string") return { chars: content.length, images: 0 };
      if (!Array.isArray(content)) return { chars: 0, images: 0 };
      return content.reduce<{ chars: number; images: number }>(
        (total, part: { type: string; [key: string]: unknown }) => {
          const cost = blockCost(part);
          return { chars: total.chars + cost.chars, images: total.images + cost.images };
        },
        { chars: 0, images: 0 },
      );
    }
    default:
      return { chars: JSON.stringify(block).length, images: 0 };
  }
}

/** A chars/4 estimate of what one message costs in a request; system lines are never sent. */
export function estimateMessageTokens(message: ConversationMessage): number {
  if (message.type === "system") return 0;
  const content = message.message.content;
  if (typeof content === "string") return estimateTextTokens(content);
  let chars = 0;
  let images = 0;
  for (const block of content) {
    const cost = blockCost(block);
    chars += cost.chars;
    images += cost.images;
  }
  return Math.ceil(chars / 4) + images * IMAGE_TOKEN_ESTIMATE;
}

/** A chars/4 estimate of the messages as the model would see them (images at a flat rate). */
export function estimateTokens(messages: readonly ConversationMessage[]): number {
  let total = 0;
  for (const message of messages) total += estimateMessageTokens(message);
  return total;
}

export function estimateSystemPromptTokens(systemPrompt: readonly string[]): number {
  return systemPrompt.reduce((total, text) => total + estimateTextTokens(text), 0);
}

export const contextLimitOptionsSchema = z.object({
  /** Overrides the model's window (tests use a small one). */
  contextWindow: z.number().int().positive().optional(),
  reservedOutputTokens: z.number().int().nonnegative().optional(),
  bufferTokens: z.number().int().nonnegative().optional(),
  /** Compact at this percentage of the effective window instead, if that comes first (`CAIRN_AUTOCOMPACT_PCT`). */
  autoCompactPct: z.number().positive().max(100).optional(),
});
export type ContextLimitOptions = z.infer<typeof contextLimitOptionsSchema>;

export type ContextLimits = {
  contextWindow: number;
  /** The window less the output reserve: what a request may use. */
  effectiveWindow: number;
  /** Auto-compaction runs when the estimate reaches this. */
  threshold: number;
  /** Past this, with nothing to compact automatically, no request is sent (Claude Code's blocking limit). */
  blockingLimit: number;
};

/** Head room below the effective window kept for a manual `/compact` to still fit. */
export const MANUAL_COMPACT_BUFFER_TOKENS = 3_000;

/** Claude models have a 200k window; a `[1m]` suffix asks for the 1M-token beta. */
export function contextWindowForModel(model: string): number {
  return /\[1m\]$/i.test(model) ? 1_000_000 : DEFAULT_CONTEXT_WINDOW;
}

export function resolveContextLimits(model: string, options: ContextLimitOptions = {}): ContextLimits {
  const parsed = contextLimitOptionsSchema.parse(options);
  const contextWindow = parsed.contextWindow ?? contextWindowForModel(model);
  const effectiveWindow = contextWindow - (parsed.reservedOutputTokens ?? Math.min(DEFAULT_RESERVED_OUTPUT_TOKENS, Math.floor(contextWindow / 4)));
  let threshold = effectiveWindow - (parsed.bufferTokens ?? Math.min(DEFAULT_BUFFER_TOKENS, Math.floor(contextWindow / 10)));
  if (parsed.autoCompactPct !== undefined) threshold = Math.min(threshold, Math.floor((effectiveWindow * parsed.autoCompactPct) / 100));
  if (threshold <= 0) {
    throw new CompactionError("invalid_config", `No room to compact: window ${contextWindow}, effective ${effectiveWindow}, threshold ${threshold}.`);
  }
  const blockingLimit = Math.max(threshold, effectiveWindow - Math.min(MANUAL_COMPACT_BUFFER_TOKENS, Math.floor(contextWindow / 20)));
  return { contextWindow, effectiveWindow, threshold, blockingLimit };
}

export type TokenCountInput = {
  messages: readonly ConversationMessage[];
  systemPrompt: readonly string[];
  lastInputTokens?: number | null;
  /**
   * Tokens sent beside the messages (system prompt, tool definitions) when the caller knows them;
   * else the system prompt is estimated. Only used when there is no usage to go by.
   */
  overheadTokens?: number;
  /** Tokens already removed (by snip or micro-compact) from messages the last response's usage counted. */
  freed?: { anchorUuid: string; tokens: number };
};

export type TokenCount = {
  tokens: number;
  /** `usage`: the last response's usage plus an estimate of what came after; `estimate`: chars/4 of everything. */
  source: "usage" | "estimate";
  /** The uuid of the response whose usage is the base, when there is one. */
  anchorUuid: string | null;
};

export function inputSideTokens(usage: Usage): number {
  return (usage.input_tokens ?? 0) + (usage.cache_read_input_tokens ?? 0) + (usage.cache_creation_input_tokens ?? 0);
}

function hasUsage(usage: Usage | undefined): usage is Usage {
  return usage !== undefined && inputSideTokens(usage) + (usage.output_tokens ?? 0) > 0;
}

/**
 * Tokens the next request will carry. The last response's usage counts everything up to it
 * exactly; the messages added since are estimated. A kept copy re-written by a compaction carries
 * no usage (its original request was larger), so right after a compaction everything is estimated.
 */
export function countContextTokens(input: TokenCountInput): TokenCount {
  const view = messagesAfterCompactBoundary(input.messages);
  const anchorIndex = lastIndexWhere(view, (message) => message.type === "assistant");
  const anchor = anchorIndex >= 0 ? (view[anchorIndex] as AssistantMessage) : undefined;
  if (anchor && !isKeptCopy(anchor)) {
    const usage = anchor.message.usage;
    let base: number | null = null;
    if (hasUsage(usage)) base = inputSideTokens(usage) + (usage.output_tokens ?? 0);
    else if (input.lastInputTokens !== undefined && input.lastInputTokens !== null) base = input.lastInputTokens + estimateMessageTokens(anchor);
    if (base !== null) {
      const freed = input.freed?.anchorUuid === anchor.uuid ? input.freed.tokens : 0;
      const since = estimateTokens(view.slice(anchorIndex + 1));
      return { tokens: Math.max(0, base - freed) + since, source: "usage", anchorUuid: anchor.uuid };
    }
  }
  const overhead = input.overheadTokens ?? estimateSystemPromptTokens(input.systemPrompt);
  return { tokens: estimateTokens(view) + overhead, source: "estimate", anchorUuid: null };
}

export type ContextUsage = {
  tokens: number;
  source: "usage" | "estimate";
  contextWindow: number;
  threshold: number;
  /** Of the context window, 0–100 (may pass 100 when a request is already too long). */
  percentUsed: number;
  /** Of the threshold still free before auto-compaction, 0–100. */
  percentLeftUntilCompact: number;
  aboveThreshold: boolean;
};

/** What the context meter shows: how full the window is and how far auto-compaction is. */
export function contextUsage(input: TokenCountInput & { model: string }, options: ContextLimitOptions = {}): ContextUsage {
  const limits = resolveContextLimits(input.model, options);
  return usageFromCount(countContextTokens(input), limits);
}

export function usageFromCount(count: Pick<TokenCount, "tokens" | "source">, limits: ContextLimits): ContextUsage {
  const percent = (value: number) => Math.round(value * 10) / 10;
  return {
    tokens: count.tokens,
    source: count.source,
    contextWindow: limits.contextWindow,
    threshold: limits.threshold,
    percentUsed: percent((count.tokens / limits.contextWindow) * 100),
    percentLeftUntilCompact: percent(Math.max(0, ((limits.threshold - count.tokens) / limits.threshold) * 100)),
    aboveThreshold: count.tokens >= limits.threshold,
  };
}
