import { randomUUID } from "node:crypto";
import { createUserMessage, dispatchSessionStart, type AgentEvent, type HookDispatcher, type TranscriptSink } from "@cairn/core";

/**
 * Claude Code runs `SessionStart` with source `compact` after `/compact` too (the loop does it after
 * an automatic compaction). Its runs are recorded, and what the hooks say joins the new context as
 * meta lines chained after `parentUuid`, written before they are yielded.
 */
export async function* sessionStartAfterCompaction(
  input: { hooks: HookDispatcher; sink: TranscriptSink; signal: AbortSignal; model: string },
  parentUuid: string | null,
): AsyncGenerator<AgentEvent> {
  const started = await dispatchSessionStart(input.hooks, "compact", { signal: input.signal, now: Date.now, model: input.model });
  for (const event of started.events) {
    if (event.type === "hook-runs") await input.sink.appendHookRuns(event.event, event.runs);
    yield event;
  }
  let parent = parentUuid;
  for (const text of started.outcome.additionalContext) {
    const note = createUserMessage({ uuid: randomUUID(), timestamp: new Date().toISOString(), parentUuid: parent, content: text, isMeta: true });
    parent = note.uuid;
    await input.sink.appendMessage(note);
    yield { type: "message", message: note };
  }
}
