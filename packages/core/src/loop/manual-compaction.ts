import type { CairnCompactor } from "../compact/compactor.ts";
import type { CompactionError } from "../compact/errors.ts";
import type { CompactionInput } from "../compact/port.ts";
import { forgetUnseenFiles } from "../compact/read-file-state.ts";
import type { HookDispatcher } from "../hooks/port.ts";
import type { AgentEvent } from "../schema/events.ts";
import type { TranscriptSink } from "../session/port.ts";
import type { ReadFileState } from "../tools/tool.ts";
import { sessionStartAfterCompaction } from "./compaction-steps.ts";
import { MessageChain } from "./message-chain.ts";

export type ManualCompactionInput = CompactionInput & {
  compactor: Pick<CairnCompactor, "compactNow">;
  /** Where the compaction's lines and hook runs are written, each before its event is yielded. */
  sink: TranscriptSink;
  instructions: string | undefined;
  /** The session's read state: files the model no longer sees are forgotten (none in a one-shot process). */
  readFileState?: ReadFileState | undefined;
  /** The session's hooks: `SessionStart` (source `compact`) runs once the summary is written. */
  hooks?: HookDispatcher | undefined;
  uuid: () => string;
  now: () => number;
};

/** The token figures of the boundary a compaction wrote. */
export type CompactionFigures = { preTokens: number; postTokens: number; summarizedCount: number };

/** What `/compact` came to: the boundary's figures (undefined if it wrote none), or why nothing changed. */
export type ManualCompactionOutcome = { ok: true; figures: CompactionFigures | undefined } | { ok: false; error: CompactionError };

/**
 * `/compact [instructions]` outside the loop (the IDE's sessions, `cairn -p "/compact"`): summarises the
 * conversation now, writes its lines and hook runs to the transcript, each before its event is yielded,
 * then runs `SessionStart` (source `compact`) whose context joins the new conversation, and flushes.
 * A failure changes nothing: its events are yielded and it is returned as a value for the caller to report.
 */
export async function* manualCompaction(input: ManualCompactionInput): AsyncGenerator<AgentEvent, ManualCompactionOutcome> {
  const { sink } = input;
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
    return { ok: false, error: outcome.error };
  }
  for (const event of outcome.result.events) {
    if (event.type === "hook-runs") await sink.appendHookRuns(event.event, event.runs);
    yield event;
  }
  if (input.readFileState) forgetUnseenFiles(input.readFileState, outcome.result);
  for (const message of outcome.result.added) {
    await sink.appendMessage(message);
    yield { type: "message", message };
  }
  if (input.hooks) {
    const chain = new MessageChain(outcome.result.added.at(-1)?.uuid ?? null, {
      uuid: input.uuid,
      timestamp: () => new Date(input.now()).toISOString(),
    });
    const started = sessionStartAfterCompaction(input.hooks, chain, { signal: input.signal, now: input.now, model: input.model });
    for await (const event of started) {
      if (event.type === "hook-runs") await sink.appendHookRuns(event.event, event.runs);
      if (event.type === "message") await sink.appendMessage(event.message);
      yield event;
    }
  }
  await sink.flush();
  const boundary = outcome.result.events.find((event) => event.type === "compact-boundary");
  if (boundary?.type !== "compact-boundary") return { ok: true, figures: undefined };
  return { ok: true, figures: { preTokens: boundary.preTokens, postTokens: boundary.postTokens, summarizedCount: boundary.summarizedCount } };
}
