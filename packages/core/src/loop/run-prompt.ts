import type { ContentBlock } from "../schema/content.ts";
import type { AgentEvent, Terminal } from "../schema/events.ts";
import type { ConversationMessage, UserMessage } from "../schema/messages.ts";
import type { TranscriptSink } from "../session/port.ts";
import { noHooks } from "../hooks/port.ts";
import { dispatchRecorded, dispatchSessionStart, type SessionStartSource } from "../hooks/session-events.ts";
import { createUserMessage } from "./messages.ts";
import { query } from "./query.ts";
import type { QueryParams } from "./query-params.ts";
import { parseTokenBudget } from "./token-budget.ts";
import { transcriptWriter } from "./transcript-writer.ts";

export type RunPromptOptions = Omit<QueryParams, "messages"> & {
  /** The conversation before this prompt (already on disk). */
  history: readonly ConversationMessage[];
  prompt: string | ContentBlock[];
  sink?: TranscriptSink;
  /** The first prompt of a session in this process: run the `SessionStart` hooks first, with this source. */
  sessionStart?: SessionStartSource;
};

export type RunPromptResult = { terminal: Terminal; messages: ConversationMessage[] };

/**
 * One user turn end to end: SessionStart hooks (on a session's first prompt), UserPromptSubmit
 * hooks, the prompt made durable before the model is called, the loop, and every message it
 * yields appended to the transcript in order.
 */
export async function* runPrompt(options: RunPromptOptions): AsyncGenerator<AgentEvent, RunPromptResult> {
  const { history, prompt, sink, sessionStart, ...queryParams } = options;
  const { deps } = queryParams;
  const hooks = queryParams.hooks ?? noHooks;
  const messages: ConversationMessage[] = [...history];
  const sidechain = queryParams.context.agentId ? { agentId: queryParams.context.agentId, isSidechain: true } : {};
  const persist = transcriptWriter(sink, messages);
  const contextNote = (content: string): AgentEvent => ({
    type: "message",
    message: createUserMessage({
      uuid: deps.uuid(),
      timestamp: new Date(deps.now()).toISOString(),
      parentUuid: messages.at(-1)?.uuid ?? null,
      content,
      isMeta: true,
      ...sidechain,
    }),
  });
  const stopped = (code: string, message: string): AgentEvent[] => {
    const terminal: Terminal = { reason: "hook_stopped", turnCount: 0 };
    return [
      { type: "notice", level: "warning", code, message },
      {
        type: "result",
        terminal,
        usage: { inputTokens: 0, outputTokens: 0, cacheReadInputTokens: 0, cacheCreationInputTokens: 0 },
        numTurns: 0,
        durationMs: 0,
        durationApiMs: 0,
        permissionDenials: [],
      },
    ];
  };

  if (sessionStart) {
    const started = await dispatchSessionStart(hooks, sessionStart, { signal: queryParams.signal, now: deps.now, model: queryParams.model });
    for (const event of started.events) {
      await persist(event);
      yield event;
    }
    for (const context of started.outcome.additionalContext) {
      const note = contextNote(context);
      await persist(note);
      yield note;
    }
    const stop = started.outcome.preventContinuation;
    if (stop) {
      yield* stopped("session_start_stopped", `SessionStart hook stopped the session${stop.stopReason ? `: ${stop.stopReason}` : ""}`);
      await sink?.flush();
      return { terminal: { reason: "hook_stopped", turnCount: 0 }, messages };
    }
  }

  const submitted = await dispatchRecorded(
    hooks,
    "UserPromptSubmit",
    { prompt: typeof prompt === "string" ? prompt : JSON.stringify(prompt) },
    { signal: queryParams.signal, now: deps.now },
  );
  for (const event of submitted.events) {
    await persist(event);
    yield event;
  }
  const blocked = submitted.outcome.blocked ?? submitted.outcome.preventContinuation;
  if (blocked) {
    const reason = submitted.outcome.blocked?.reason ?? submitted.outcome.preventContinuation?.stopReason ?? "blocked by a hook";
    yield* stopped("prompt_blocked", `UserPromptSubmit hook blocked the prompt: ${reason}`);
    await sink?.flush();
    return { terminal: { reason: "hook_stopped", turnCount: 0 }, messages };
  }

  const userMessage: UserMessage = createUserMessage({
    uuid: deps.uuid(),
    timestamp: new Date(deps.now()).toISOString(),
    parentUuid: messages.at(-1)?.uuid ?? null,
    content: prompt,
    ...sidechain,
  });
  await persist({ type: "message", message: userMessage });
  yield { type: "message", message: userMessage };
  for (const context of submitted.outcome.additionalContext) {
    const note = contextNote(context);
    await persist(note);
    yield note;
  }

  // A budget named in the prompt ("+500k", "use 2M tokens") wins over the session's setting.
  const named = typeof prompt === "string" ? parseTokenBudget(prompt) : null;
  const loop = query({ ...queryParams, ...(named ? { tokenBudget: named } : {}), messages: [...messages] });
  while (true) {
    const step = await loop.next();
    if (step.done) {
      await sink?.flush();
      return { terminal: step.value, messages };
    }
    await persist(step.value);
    yield step.value;
  }
}
