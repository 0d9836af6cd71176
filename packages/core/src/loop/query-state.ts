import type { ConversationMessage } from "../schema/messages.ts";
import type { ToolUseContext } from "../tools/tool.ts";
import type { QueryParams } from "./query-params.ts";

/** Why the previous iteration continued, kept for tests and debugging. */
export type Transition =
  | { reason: "tool_use" }
  | { reason: "max_tokens_escalate" }
  | { reason: "max_tokens_resume"; attempt: number }
  | { reason: "stream_cut_resume"; attempt: number }
  | { reason: "collapse_drain" }
  | { reason: "reactive_compact" }
  | { reason: "stop_hook_blocking" }
  | { reason: "token_budget_continuation"; continuation: number }
  | { reason: "background_agent" };

/** All that changes between iterations, rewritten whole at each `continue` site. */
export type QueryState = {
  messages: ConversationMessage[];
  context: ToolUseContext;
  model: string;
  turnCount: number;
  maxOutputTokensOverride: number | undefined;
  maxOutputTokensRecoveryCount: number;
  streamCutRecoveryCount: number;
  hasAttemptedReactiveCompact: boolean;
  /** The staged context collapses were committed after a prompt-too-long answer (once per prompt). */
  hasDrainedCollapses: boolean;
  stopHookActive: boolean;
  batchesUsed: number;
  lastInputTokens: number | null;
  transition: Transition | undefined;
};

/** The state before the first iteration: the caller's conversation, context and model, no recovery tried yet. */
export function initialQueryState(params: QueryParams): QueryState {
  return {
    messages: params.messages,
    context: { ...params.context, signal: params.signal, tools: params.tools, messages: params.messages },
    model: params.model,
    turnCount: 1,
    maxOutputTokensOverride: undefined,
    maxOutputTokensRecoveryCount: 0,
    streamCutRecoveryCount: 0,
    hasAttemptedReactiveCompact: false,
    hasDrainedCollapses: false,
    stopHookActive: false,
    batchesUsed: 0,
    lastInputTokens: null,
    transition: undefined,
  };
}
