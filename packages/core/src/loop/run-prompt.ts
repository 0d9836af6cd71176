import type { ContentBlock } from "../schema/content.ts";
import type { AgentEvent, Terminal } from "../schema/events.ts";
import type { ConversationMessage, UserMessage } from "../schema/messages.ts";
import type { TranscriptSink } from "../session/port.ts";
import { noHooks } from "../hooks/port.ts";
import { createUserMessage } from "./messages.ts";
import { query, type QueryParams } from "./query.ts";

export type RunPromptOptions = Omit<QueryParams, "messages"> & {
  /** The conversation before this prompt (already on disk). */
  history: readonly ConversationMessage[];
  prompt: string | ContentBlock[];
  sink?: TranscriptSink;
};

export type RunPromptResult = { terminal: Terminal; messages: ConversationMessage[] };

/**
 * One user turn end to end: UserPromptSubmit hooks, the prompt made durable before the model is
 * called, the loop, and every message it yields appended to the transcript in order.
 */
export async function* runPrompt(options: RunPromptOptions): AsyncGenerator<AgentEvent, RunPromptResult> {
  const { history, prompt, sink, ...queryParams } = options;
  const { deps } = queryParams;
  const hooks = queryParams.hooks ?? noHooks;
  const messages: ConversationMessage[] = [...history];
  const userMessage: UserMessage = createUserMessage({
    uuid: deps.uuid(),
    timestamp: new Date(deps.now()).toISOString(),
    parentUuid: history.at(-1)?.uuid ?? null,
    content: prompt,
    ...(queryParams.context.agentId ? { agentId: queryParams.context.agentId, isSidechain: true } : {}),
  });

  const submitted = await hooks.dispatch(
    "UserPromptSubmit",
    { prompt: typeof prompt === "string" ? prompt : JSON.stringify(prompt) },
    { signal: queryParams.signal },
  );
  if (submitted.blocked || submitted.preventContinuation) {
    const reason = submitted.blocked?.reason ?? submitted.preventContinuation?.stopReason ?? "blocked by a hook";
    yield { type: "notice", level: "warning", code: "prompt_blocked", message: `UserPromptSubmit hook blocked the prompt: ${reason}` };
    const terminal: Terminal = { reason: "hook_stopped", turnCount: 0 };
    yield { type: "result", terminal, usage: { inputTokens: 0, outputTokens: 0, cacheReadInputTokens: 0, cacheCreationInputTokens: 0 }, numTurns: 0, durationMs: 0, durationApiMs: 0, permissionDenials: [] };
    return { terminal, messages };
  }

  await sink?.appendMessage(userMessage);
  messages.push(userMessage);
  yield { type: "message", message: userMessage };
  for (const context of submitted.additionalContext) {
    const note = createUserMessage({
      uuid: deps.uuid(),
      timestamp: new Date(deps.now()).toISOString(),
      parentUuid: messages.at(-1)!.uuid,
      content: context,
      isMeta: true,
    });
    await sink?.appendMessage(note);
    messages.push(note);
    yield { type: "message", message: note };
  }

  const loop = query({ ...queryParams, messages: [...messages] });
  while (true) {
    const step = await loop.next();
    if (step.done) {
      await sink?.flush();
      return { terminal: step.value, messages };
    }
    const event = step.value;
    if (event.type === "message") {
      messages.push(event.message);
      await sink?.appendMessage(event.message);
    } else if (event.type === "tombstone" && event.uuid) {
      await sink?.appendTombstone(event.uuid, event.reason);
    }
    yield event;
  }
}
