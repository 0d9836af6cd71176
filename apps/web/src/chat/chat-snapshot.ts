import type { SessionSnapshot } from "../trpc/types.ts";
import { applyWireMessage, newToolCall } from "./apply-message.ts";
import { initialChatState, type ChatState } from "./chat-types.ts";

/**
 * The chat as `session.get` describes it. The event stream continues after `lastSeq`, or, while a response
 * streams, from just before its `message-start`, so the text streamed so far is replayed too (the reducer
 * keys messages by id and uuid, so what the snapshot already holds is not doubled).
 */
export function stateFromSnapshot(snapshot: SessionSnapshot): ChatState {
  let state: ChatState = initialChatState();
  snapshot.messages.forEach((message, index) => {
    state = applyWireMessage(state, message, `history:${index}`);
  });
  const toolCalls = { ...state.toolCalls };
  for (const request of snapshot.pendingPermissions) {
    const call = toolCalls[request.toolUseId] ?? newToolCall(request.toolUseId, request.toolName, request.input);
    toolCalls[request.toolUseId] = { ...call, awaitingPermission: true };
  }
  return {
    ...state,
    toolCalls,
    permissionRequests: snapshot.pendingPermissions.map((request) => ({ ...request })),
    running: snapshot.running,
    permissionMode: snapshot.permissionMode,
    model: snapshot.model,
    todos: snapshot.todos,
    contextTokens: snapshot.contextTokens,
    contextWindow: snapshot.contextWindow,
    queued: snapshot.queued,
    backgroundAgents: snapshot.backgroundAgents,
    lastEventId: String(snapshot.streamingFromSeq ?? snapshot.lastSeq),
  };
}
