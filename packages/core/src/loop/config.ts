import type { PromptCachingMode } from "../model/cache-control.ts";
import { defaultRetryPolicy, type RetryPolicy } from "../model/retry.ts";
import { MAX_TOOL_RESULTS_PER_MESSAGE_CHARS } from "./tool-result-budget.ts";
import type { ThinkingSetting } from "../model/thinking.ts";

/** Taken once per query, so a long run does not re-read settings at every turn. */
export type QueryConfig = {
  maxToolConcurrency: number;
  /** Whether requests carry `cache_control` breakpoints: by model (`auto`), always, or never. */
  promptCaching: PromptCachingMode;
  /** Extended thinking, resolved for each request's model. */
  thinking: ThinkingSetting;
  maxOutputTokens: number;
  /** The raised limit tried once after a response stopped at `max_tokens`. */
  escalatedMaxOutputTokens: number;
  /** Continuations with a resume note after `max_tokens`, once the limit was raised. */
  maxOutputTokensRecoveries: number;
  /** Continuations after a stream was cut mid-response. */
  maxStreamCutRecoveries: number;
  /** The tool results answering one response may use this many characters together; the largest beyond it are saved to disk. */
  maxToolResultsPerMessageChars: number;
  retry: RetryPolicy;
};

export const defaultQueryConfig: QueryConfig = {
  maxToolConcurrency: 10,
  promptCaching: "auto",
  thinking: "auto",
  maxOutputTokens: 16_384,
  escalatedMaxOutputTokens: 64_000,
  maxOutputTokensRecoveries: 3,
  maxStreamCutRecoveries: 3,
  maxToolResultsPerMessageChars: MAX_TOOL_RESULTS_PER_MESSAGE_CHARS,
  retry: defaultRetryPolicy,
};

export const MAX_TOKENS_RESUME_MESSAGE =
  "Output token limit hit. Resume directly — no apology, no recap of what you were doing. Pick up mid-thought if that is where the cut happened. Break remaining work into smaller pieces.";

export const STREAM_CUT_RESUME_MESSAGE =
  "Your previous response was cut off by a connection error before it finished. Continue exactly where it stopped; do not repeat what was already said.";
