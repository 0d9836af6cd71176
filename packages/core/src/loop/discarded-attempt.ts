import type { ContentBlock } from "../schema/content.ts";
import type { AgentEvent } from "../schema/events.ts";
import type { AssistantMessage } from "../schema/messages.ts";

/**
 * A streamed attempt the loop throws away (a retry after content had streamed, or an answer cut at the
 * output limit and asked again with a higher one): it is recorded as a partial assistant message off
 * the main chain, then tombstoned by its uuid, so the transcript keeps what happened and loaders skip it.
 */
export function discardedAttemptEvents(options: {
  uuid: string;
  parentUuid: string | null;
  timestamp: string;
  messageId: string;
  model: string;
  content: ContentBlock[];
  reason: string;
  agentId: string | undefined;
}): [Extract<AgentEvent, { type: "message" }>, Extract<AgentEvent, { type: "tombstone" }>] {
  const message: AssistantMessage = {
    type: "assistant",
    uuid: options.uuid,
    parentUuid: options.parentUuid,
    timestamp: options.timestamp,
    message: { id: options.messageId, role: "assistant", model: options.model, content: options.content },
    isPartial: true,
    ...(options.agentId ? { agentId: options.agentId, isSidechain: true } : {}),
  };
  return [
    { type: "message", message },
    { type: "tombstone", messageId: options.messageId, uuid: options.uuid, reason: options.reason },
  ];
}
