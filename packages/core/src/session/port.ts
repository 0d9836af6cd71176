import type { ConversationMessage, HookRunRecord } from "../schema/messages.ts";

/**
 * Where a session's transcript goes. The Node implementation appends JSONL lines through one
 * queue per session (`@cairn/core/node`); tests use an in-memory sink.
 */
export interface TranscriptSink {
  readonly sessionId: string;
  /** Resolves once the line is written (and, for user prompts, durable per the fsync policy). */
  appendMessage(message: ConversationMessage): Promise<void>;
  appendTombstone(tombstoneOf: string, reason: string): Promise<void>;
  /** The hook runs of one session event (tool hooks are kept on the tool call's record instead). */
  appendHookRuns(event: string, runs: readonly HookRunRecord[]): Promise<void>;
  flush(): Promise<void>;
  close(): Promise<void>;
}
