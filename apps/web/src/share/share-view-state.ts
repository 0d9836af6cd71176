import { applyWireMessage } from "../chat/apply-message.ts";
import { initialChatState, type ChatState, type WireMessage } from "../chat/chat-types.ts";

/** What the share router says about the conversation a link shows (already redacted by the server). */
export type SharedConversation = {
  messages: readonly WireMessage[];
  running: boolean;
  /** Live shares: the event id to continue after (the server picks it, before a streaming answer's start); null for snapshots. */
  lastEventId: string | null;
};

/**
 * The chat view of a shared conversation. It is the IDE's own `ChatState`, so live events fold in with the
 * same reducer; nothing here can answer a permission question, so none is kept.
 */
export function stateFromSharedConversation(shared: SharedConversation): ChatState {
  let state = initialChatState();
  shared.messages.forEach((message, index) => {
    state = applyWireMessage(state, message, `shared:${index}`);
  });
  return { ...state, running: shared.running, lastEventId: shared.lastEventId };
}

/**
 * Live events may carry questions for the owner; a viewer sees the tool call pending, never the question
 * (nor a card saying "waiting for you", which would be about someone else).
 */
export function withoutPermissionRequests(state: ChatState): ChatState {
  const waiting = Object.values(state.toolCalls).filter((call) => call.awaitingPermission);
  if (state.permissionRequests.length === 0 && waiting.length === 0) return state;
  const toolCalls = { ...state.toolCalls };
  for (const call of waiting) toolCalls[call.toolUseId] = { ...call, awaitingPermission: false };
  return { ...state, toolCalls, permissionRequests: [] };
}
