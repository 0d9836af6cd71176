import {
  addUsage,
  conversationMessageSchema,
  emptyUsageTotals,
  type AssistantMessage,
  type ConversationMessage,
  type SystemMessage,
  type UserMessage,
} from "@cairn/core/schema";
import type { AssistantBlockView, ChatItem, ChatState, ToolCallView, WireMessage } from "./chat-types.ts";
import { toolResultText } from "./tool-text.ts";

export function newToolCall(toolUseId: string, name: string, input: unknown = undefined): ToolCallView {
  return {
    toolUseId,
    name,
    status: "pending",
    input,
    inputJson: "",
    progress: "",
    result: undefined,
    record: undefined,
    decision: undefined,
    awaitingPermission: false,
  };
}

/** Applies an assembled conversation message: it replaces its streamed draft, or is appended (history, resume). */
/** Messages cross the wire as JSON: validate them before the view trusts their shape. */
export function applyWireMessage(state: ChatState, wire: WireMessage, key: string): ChatState {
  const parsed = conversationMessageSchema.safeParse(wire);
  if (parsed.success) return applyMessage(state, parsed.data);
  const item: ChatItem = {
    kind: "error",
    id: `event:${key}`,
    code: "invalid_message",
    message: `The server sent a message this page cannot read: ${parsed.error.message}`,
  };
  return { ...state, items: [...state.items, item] };
}

export function applyMessage(state: ChatState, message: ConversationMessage): ChatState {
  // A compaction re-writes the recent messages it keeps after its boundary; one already on screen is not shown twice.
  const keptFrom = typeof message.keptFrom === "string" ? message.keptFrom : undefined;
  if (keptFrom && state.items.some((item) => item.id === keptFrom || (item.kind === "assistant" && item.uuid === keptFrom))) return state;
  switch (message.type) {
    case "assistant":
      return applyAssistant(state, message);
    case "user":
      return applyUser(state, message);
    case "system":
      return applySystem(state, message);
  }
}

function applyAssistant(state: ChatState, message: AssistantMessage): ChatState {
  const messageId = message.message.id;
  const toolCalls = { ...state.toolCalls };
  const blocks: AssistantBlockView[] = [];
  for (const block of message.message.content) {
    if (block.type === "text") blocks.push({ type: "text", text: block.text });
    else if (block.type === "thinking") blocks.push({ type: "thinking", text: block.thinking, redacted: false });
    else if (block.type === "redacted_thinking") blocks.push({ type: "thinking", text: "", redacted: true });
    else if (block.type === "tool_use") {
      const existing = toolCalls[block.id];
      toolCalls[block.id] = existing ? { ...existing, input: existing.input ?? block.input } : newToolCall(block.id, block.name, block.input);
      blocks.push({ type: "tool_use", toolUseId: block.id });
    }
  }
  const item: ChatItem = {
    kind: "assistant",
    id: messageId,
    uuid: message.uuid,
    model: message.message.model,
    streaming: false,
    partial: message.isPartial === true,
    blocks,
    ...(message.message.usage ? { usage: addUsage(emptyUsageTotals(), message.message.usage) } : {}),
  };
  let index = state.items.findIndex((candidate) => candidate.kind === "assistant" && candidate.id === messageId);
  // Joined mid-stream: the draft built from deltas had no message id yet.
  if (index === -1 && state.streamingId?.startsWith(DRAFT_PREFIX)) index = state.items.findIndex((candidate) => candidate.id === state.streamingId);
  const replaced = index === -1 ? undefined : state.items[index];
  const items = index === -1 ? [...state.items, item] : state.items.with(index, item);
  const wasStreaming = state.streamingId === messageId || (replaced !== undefined && replaced.id === state.streamingId);
  return { ...state, items, toolCalls, streamingId: wasStreaming ? null : state.streamingId };
}

function applyUser(state: ChatState, message: UserMessage): ChatState {
  const content = message.message.content;
  if (typeof content === "string") return message.isMeta || message.isCompactSummary ? state : addUserText(state, message.uuid, content);
  let next = state;
  const texts: string[] = [];
  for (const block of content) {
    if (block.type === "tool_result") {
      const call = next.toolCalls[block.tool_use_id];
      if (!call) continue;
      const isError = block.is_error === true;
      const status = call.status === "completed" || call.status === "error" ? call.status : isError ? "error" : "completed";
      const updated: ToolCallView = {
        ...call,
        status,
        awaitingPermission: false,
        result: { text: toolResultText(block.content), isError },
        record: call.record ?? message.toolCall,
        decision: call.decision ?? (message.toolCall?.decision ? { ...message.toolCall.decision } : undefined),
      };
      next = { ...next, toolCalls: { ...next.toolCalls, [call.toolUseId]: updated } };
    } else if (block.type === "text") texts.push(block.text);
  }
  if (texts.length > 0 && !message.isMeta && !message.isCompactSummary) next = addUserText(next, message.uuid, texts.join("\n"));
  return next;
}

/** A prompt the user just sent is shown at once; the server's copy replaces it instead of doubling it. */
function addUserText(state: ChatState, uuid: string, text: string): ChatState {
  if (state.items.some((item) => item.kind === "user" && item.id === uuid)) return state;
  const local = state.items.findIndex((item) => item.kind === "user" && item.id.startsWith(LOCAL_PREFIX) && item.text === text);
  const item: ChatItem = { kind: "user", id: uuid, text };
  return { ...state, items: local === -1 ? [...state.items, item] : state.items.with(local, item) };
}

export const LOCAL_PREFIX = "local:";
/** An assistant message seen only from the middle of its stream, before its id is known. */
export const DRAFT_PREFIX = "draft:";

function applySystem(state: ChatState, message: SystemMessage): ChatState {
  if (state.items.some((item) => item.id === message.uuid)) return state;
  if (message.subtype === "compact_boundary") {
    const metadata = message.compactMetadata;
    // The `compact-boundary` event already drew this boundary when the run was watched live.
    const last = state.items.at(-1);
    if (last?.kind === "compact" && last.id.startsWith("event:")) {
      return { ...state, items: state.items.with(-1, { ...last, id: message.uuid }) };
    }
    return {
      ...state,
      items: [
        ...state.items,
        {
          kind: "compact",
          id: message.uuid,
          trigger: metadata?.trigger ?? "auto",
          preTokens: metadata?.preTokens ?? 0,
          postTokens: metadata?.postTokens,
          summarizedCount: metadata?.summarizedUuids?.length,
        },
      ],
    };
  }
  if (!message.content) return state;
  const level = message.level ?? "info";
  return { ...state, items: [...state.items, { kind: "notice", id: message.uuid, level, code: message.subtype, message: message.content }] };
}
