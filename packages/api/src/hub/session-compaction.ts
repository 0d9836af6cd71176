import {
  forgetUnseenFiles,
  type AgentEvent,
  type CairnCompactor,
  type HookDispatcher,
  type ModelClient,
  type ReadFileState,
  type TranscriptSink,
} from "@cairn/core";
import type { ConversationMessage } from "@cairn/core/schema";
import { ApiError } from "../router/errors.ts";
import { sessionStartAfterCompaction } from "./session-start-after-compaction.ts";
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
 * `/compact [instructions]` for a live session: yields the compaction's events and, once each is
 * durable, a `message` event per line it adds; returns the token figures, or why nothing changed.
 */
async function* manualCompaction(input: ManualCompactionInput): AsyncGenerator<AgentEvent, CompactResult | ApiError> {
  const outcome = await input.compactor.compactNow(
    {
      messages: input.messages,
      model: input.model,
      systemPrompt: input.systemPrompt,
      signal: input.signal,
      client: input.client,
      lastInputTokens: input.lastInputTokens,
    },
    input.instructions ? { instructions: input.instructions } : {},
  );
  if (!outcome.ok) {
    yield* outcome.events;
    return new ApiError("compaction_failed", `The conversation was not compacted (${outcome.error.code}): ${outcome.error.message}`, { cause: outcome.error });
  }
  for (const event of outcome.result.events) {
    if (event.type === "hook-runs") await input.sink.appendHookRuns(event.event, event.runs);
    yield event;
  }
  forgetUnseenFiles(input.readFileState, outcome.result);
  for (const message of outcome.result.added) {
    await input.sink.appendMessage(message);
    yield { type: "message", message };
  }
  if (input.hooks) yield* sessionStartAfterCompaction({ ...input, hooks: input.hooks }, outcome.result.added.at(-1)?.uuid ?? null);
  await input.sink.flush();
  const boundary = outcome.result.events.find((event) => event.type === "compact-boundary");
  if (boundary?.type !== "compact-boundary") return { preTokens: 0, postTokens: 0, summarizedCount: 0 };
  return { preTokens: boundary.preTokens, postTokens: boundary.postTokens, summarizedCount: boundary.summarizedCount };
}

/** Runs `manualCompaction` to its end, handing each event to `onEvent`; returns its outcome. */
export async function runManualCompaction(
  session: Omit<ManualCompactionInput, "instructions" | "signal" | "readFileState">,
  run: Pick<ManualCompactionInput, "instructions" | "signal" | "readFileState">,
  onEvent: (event: AgentEvent) => void,
): Promise<CompactResult | ApiError> {
  const steps = manualCompaction({ ...session, ...run });
  while (true) {
    const step = await steps.next();
    if (step.done) return step.value;
    onEvent(step.value);
  }
}
