export const compactionErrorCodes = [
  /** The summary call failed (transport error after retries, a refusal, a cut stream). */
  "summary_failed",
  /** The model answered without any summary text. */
  "empty_summary",
  /** Even the summary request was too long, after dropping the oldest messages. */
  "prompt_too_long",
  /** The caller's signal was aborted. */
  "aborted",
  /** There is nothing before the kept messages to summarise. */
  "nothing_to_compact",
  /** A PreCompact hook blocked the compaction. */
  "hook_blocked",
  /** The compactor's options are inconsistent (e.g. no room left below the context window). */
  "invalid_config",
] as const;
export type CompactionErrorCode = (typeof compactionErrorCodes)[number];

export class CompactionError extends Error {
  override readonly name = "CompactionError";
  readonly code: CompactionErrorCode;

  constructor(code: CompactionErrorCode, message: string, options: { cause?: unknown } = {}) {
    super(message, { cause: options.cause });
    this.code = code;
  }
}
