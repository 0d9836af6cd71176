import type { CompactionResult } from "../compact/port.ts";
import type { HookDispatcher } from "../hooks/port.ts";
import { dispatchSessionStart } from "../hooks/session-events.ts";
import type { AgentEvent } from "../schema/events.ts";
import type { UserMessage } from "../schema/messages.ts";
import type { MessageChain } from "./message-chain.ts";

/** A compaction's own events, then the messages it added (boundary, summary, restored files). */
export function* emitCompaction(result: CompactionResult): Generator<AgentEvent> {
  yield* result.events;
  for (const message of result.added) yield { type: "message", message };
}

/**
 * Claude Code runs `SessionStart` (source `compact`) after every compaction, automatic or `/compact`:
 * its runs are yielded (`hook-runs`, for the transcript), and what the hooks say joins the new context
 * as meta lines linked on `chain`, yielded and returned.
 */
export async function* sessionStartAfterCompaction(
  hooks: HookDispatcher,
  chain: MessageChain,
  options: { signal: AbortSignal; now: () => number; model: string },
): AsyncGenerator<AgentEvent, UserMessage[]> {
  const started = await dispatchSessionStart(hooks, "compact", options);
  yield* started.events;
  const notes: UserMessage[] = [];
  for (const text of started.outcome.additionalContext) {
    const note = chain.meta(text);
    notes.push(note);
    yield { type: "message", message: note };
  }
  return notes;
}
