import { messagesAfterCompactBoundary } from "../loop/messages.ts";
import type { ConversationMessage } from "../schema/messages.ts";
import { lastIndexWhere } from "./conversation.ts";

/** Anthropic's default prompt-cache lifetime: an entry not read for five minutes is gone. */
export const DEFAULT_PROMPT_CACHE_TTL_MS = 5 * 60_000;

/**
 * Whether the prompt cache can still hold this conversation's prefix: `warm` while the last request
 * (the time of the latest response) is younger than the TTL, `cold` once it is certainly expired,
 * `none` before the first response.
 */
export type PromptCacheState = { state: "warm" | "cold"; idleMs: number } | { state: "none" };

export function promptCacheState(messages: readonly ConversationMessage[], now: number, ttlMs: number): PromptCacheState {
  const view = messagesAfterCompactBoundary(messages);
  const last = view[lastIndexWhere(view, (message) => message.type === "assistant")];
  const sentAt = last ? Date.parse(last.timestamp) : Number.NaN;
  if (Number.isNaN(sentAt)) return { state: "none" };
  const idleMs = Math.max(0, now - sentAt);
  return { state: idleMs > ttlMs ? "cold" : "warm", idleMs };
}
