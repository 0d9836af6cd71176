import type { CallModelResult } from "../model/call-model.ts";
import type { AssistantMessage } from "../schema/messages.ts";
import type { Usage } from "../schema/usage.ts";

/** The turn's assistant message while it streams: its completed blocks are pushed in as they arrive. */
export function streamingAssistantMessage(options: {
  uuid: string;
  parentUuid: string | null;
  timestamp: string;
  model: string;
  agentId: string | undefined;
}): AssistantMessage {
  return {
    type: "assistant",
    uuid: options.uuid,
    parentUuid: options.parentUuid,
    timestamp: options.timestamp,
    message: { id: "", role: "assistant", model: options.model, content: [] },
    ...(options.agentId ? { agentId: options.agentId, isSidechain: true } : {}),
  };
}

/** Replaces the streamed blocks with the assembled answer, its usage and the call's record; a cut stream's answer is partial. */
export function completeAssistantMessage(assistant: AssistantMessage, result: Exclude<CallModelResult, { kind: "failed" }>, requestModel: string): void {
  const assembled = result.message;
  assistant.message = {
    id: assembled.id,
    type: "message",
    role: "assistant",
    model: assembled.model || requestModel,
    content: assembled.content,
    stop_reason: assembled.stopReason,
    stop_sequence: assembled.stopSequence,
    usage: assembled.usage,
  };
  if (assembled.requestId) assistant.requestId = assembled.requestId;
  assistant.modelCall = result.record;
  if (result.kind === "cut") assistant.isPartial = true;
}

/** The context the request filled: fresh input plus what was read from and written to the cache. */
export function inputTokensOf(usage: Usage): number {
  return (usage.input_tokens ?? 0) + (usage.cache_read_input_tokens ?? 0) + (usage.cache_creation_input_tokens ?? 0);
}
