import type { AgentEvent } from "../schema/events.ts";
import type { ConversationMessage } from "../schema/messages.ts";
import type { ModelClient } from "../model/port.ts";

export type CompactionInput = {
  /** The whole conversation held by the loop, boundaries included. */
  messages: ConversationMessage[];
  model: string;
  systemPrompt: readonly string[];
  signal: AbortSignal;
  client: ModelClient;
  /** Usage of the last response, for token accounting. */
  lastInputTokens: number | null;
};

export type CompactionResult = {
  /**
   * Replaces the loop's conversation (the boundary and summary lines included). A stage that has
   * only something to say (the breaker's notice) returns the input's messages unchanged.
   */
  messages: ConversationMessage[];
  /** Messages to persist and show: the boundary, the summary, notices. Empty for snip and micro-compact, which change nothing on disk. */
  added: ConversationMessage[];
  events: AgentEvent[];
  /**
   * Set by a summarising compaction: the files whose content the model still sees (read in the kept
   * messages, or re-attached whole). The loop forgets every other file's read state.
   */
  visibleFiles?: string[];
};

/**
 * The loop's compaction stages, run in order before each request: snip → micro-compact → collapse →
 * auto-compact; when the API rejected a request as too long, `drainCollapses` and then `reactive` run. A stage returns null to leave the
 * conversation as it is.
 */
export interface Compactor {
  snip(input: CompactionInput): Promise<CompactionResult | null>;
  microcompact(input: CompactionInput): Promise<CompactionResult | null>;
  /** Context collapse, between micro-compact and auto-compact (optional). */
  collapse?(input: CompactionInput): Promise<CompactionResult | null>;
  autocompact(input: CompactionInput): Promise<CompactionResult | null>;
  /** After a prompt-too-long answer, before `reactive`: commits the staged collapses, if there are any. */
  drainCollapses?(input: CompactionInput): Promise<CompactionResult | null>;
  reactive(input: CompactionInput): Promise<CompactionResult | null>;
  /**
   * Checked after the stages, before the request: non-null when nothing will make room (auto-compaction
   * off or paused) and the conversation is over the hard limit, so the request would surely fail.
   */
  blockingLimit?(input: CompactionInput): BlockingLimit | null;
  /**
   * The task budget (reference design §1.6), when one is set: its total and, once a compaction has
   * happened, what is left of it (the context compacted away was spent, though the server no longer sees it).
   * `conversation` (compact boundaries included) tells what earlier compactions took, also those of a
   * resumed session's earlier runs.
   */
  taskBudget?(conversation?: readonly ConversationMessage[]): { total: number; remaining: number | undefined } | undefined;
}

export type BlockingLimit = { tokens: number; limit: number; message: string };

export const noCompaction: Compactor = {
  snip: async () => null,
  microcompact: async () => null,
  autocompact: async () => null,
  reactive: async () => null,
};
