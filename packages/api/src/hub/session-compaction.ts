import { randomUUID } from "node:crypto";
import {
  manualCompaction,
  type AgentEvent,
  type CairnCompactor,
  type HookDispatcher,
  type ModelClient,
  type ReadFileState,
  type TranscriptSink,
} from "@cairn/core";
import type { ConversationMessage } from "@cairn/core/schema";
import { ApiError } from "../router/errors.ts";
import type { CompactResult } from "../router/types.ts";

type ManualCompactionInput = {
  compactor: CairnCompactor;
  sink: TranscriptSink;
  /** The conversation as the loop would see it (repaired, from the last boundary). */
  messages: ConversationMessage[];
  model: string;
  systemPrompt: readonly string[];
  client: ModelClient;
  lastInputTokens: number | null;
  instructions: string | undefined;
  signal: AbortSignal;
  /** The session's read state: files the model no longer sees are forgotten. */
  readFileState: ReadFileState;
  /** The session's hooks: `SessionStart` (source `compact`) runs once the summary is written. */
  hooks?: HookDispatcher;
};

/**
 * `/compact [instructions]` for a live session: core's `manualCompaction` run to its end, handing each
 * event (once durable) to `onEvent`; returns the token figures, or why nothing changed as an ApiError.
 */
export async function runManualCompaction(
  session: Omit<ManualCompactionInput, "instructions" | "signal" | "readFileState">,
  run: Pick<ManualCompactionInput, "instructions" | "signal" | "readFileState">,
  onEvent: (event: AgentEvent) => void,
): Promise<CompactResult | ApiError> {
  const steps = manualCompaction({ ...session, ...run, uuid: randomUUID, now: Date.now });
  while (true) {
    const step = await steps.next();
    if (!step.done) {
      onEvent(step.value);
      continue;
    }
    const outcome = step.value;
    if (!outcome.ok) {
      const { error } = outcome;
      return new ApiError("compaction_failed", `The conversation was not compacted (${error.code}): ${error.message}`, { cause: error });
    }
    return outcome.figures ?? { preTokens: 0, postTokens: 0, summarizedCount: 0 };
  }
}
