import type { AssistantBlockView, ChatItem, ChatState, SessionEvent, ToolCallView } from "./chat-types.ts";
import { applyWireMessage, DRAFT_PREFIX, LOCAL_PREFIX, newToolCall } from "./apply-message.ts";
import { applySubagentProgress } from "./subagent.ts";
import { progressText, tryParseJson } from "./tool-text.ts";

/**
 * Folds one session event into the chat's view state. Pure and JSON-serialisable, so a reload can restore
 * the state from sessionStorage and resume the stream after `lastEventId`.
 */
export function applyEvent(state: ChatState, event: SessionEvent, eventId?: string): ChatState {
  const next = reduce(state, event, eventId ?? `${state.items.length}`);
  return eventId === undefined ? next : { ...next, lastEventId: eventId };
}

export function applyEvents(state: ChatState, events: readonly { id?: string; event: SessionEvent }[]): ChatState {
  let next = state;
  for (const { id, event } of events) next = applyEvent(next, event, id);
  return next;
}

/** Shows a prompt immediately; the server's `message` event replaces it. */
export function addLocalPrompt(state: ChatState, text: string, localId: string): ChatState {
  return { ...state, items: [...state.items, { kind: "user", id: `${LOCAL_PREFIX}${localId}`, text }] };
}

function reduce(state: ChatState, event: SessionEvent, key: string): ChatState {
  switch (event.type) {
    case "resync":
      // The events since our cursor are gone: the conversation follows as a snapshot, so what we hold of it goes.
      return { ...state, items: [], toolCalls: {}, streamingId: null, permissionRequests: [], compactions: [] };
    case "session-state":
      return {
        ...state,
        running: event.running,
        permissionMode: event.permissionMode,
        model: event.model,
        todos: event.todos,
        contextTokens: event.contextTokens,
        queued: event.queued,
        backgroundAgents: event.backgroundAgents,
        // A run that ended while we were away leaves nothing streaming.
        ...(event.running ? {} : { streamingId: null, permissionRequests: [], items: stopStreaming(state.items) }),
      };
    case "request-start":
      return { ...state, running: true };
    case "message-start": {
      const item: ChatItem = { kind: "assistant", id: event.messageId, model: event.model, streaming: true, partial: false, blocks: [] };
      const index = state.items.findIndex((candidate) => candidate.kind === "assistant" && candidate.id === event.messageId);
      return { ...state, running: true, streamingId: event.messageId, items: index === -1 ? [...state.items, item] : state.items.with(index, item) };
    }
    case "block-start": {
      const block: AssistantBlockView =
        event.blockType === "tool_use" && event.toolUseId
          ? { type: "tool_use", toolUseId: event.toolUseId }
          : event.blockType === "thinking" || event.blockType === "redacted_thinking"
            ? { type: "thinking", text: "", redacted: event.blockType === "redacted_thinking" }
            : { type: "text", text: "" };
      const withBlock = updateStreaming(ensureStreaming(state, key), (blocks) => {
        const copy = [...blocks];
        copy[event.index] = block;
        return copy;
      });
      if (block.type !== "tool_use" || withBlock.toolCalls[block.toolUseId]) return withBlock;
      return { ...withBlock, toolCalls: { ...withBlock.toolCalls, [block.toolUseId]: newToolCall(block.toolUseId, event.name ?? "tool") } };
    }
    case "text-delta":
      return updateStreamingBlock(ensureStreaming(state, key), event.index, { type: "text", text: "" }, (block) =>
        block.type === "text" ? { ...block, text: block.text + event.text } : block,
      );
    case "thinking-delta":
      return updateStreamingBlock(ensureStreaming(state, key), event.index, { type: "thinking", text: "", redacted: false }, (block) =>
        block.type === "thinking" ? { ...block, text: block.text + event.thinking } : block,
      );
    case "tool-input-delta": {
      const block = streamingBlocks(state)?.[event.index];
      if (block?.type !== "tool_use") return state;
      return updateTool(state, block.toolUseId, (call) => ({ ...call, inputJson: call.inputJson + event.partialJson }));
    }
    case "block-stop": {
      const block = streamingBlocks(state)?.[event.index];
      if (block?.type !== "tool_use") return state;
      return updateTool(state, block.toolUseId, (call) => (call.input === undefined ? { ...call, input: tryParseJson(call.inputJson) } : call));
    }
    case "message":
      return applyWireMessage(state, event.message, key);
    case "tool-start":
      return upsertTool(state, event.toolUseId, event.name, (call) => ({ ...call, status: "running", input: event.input }));
    case "tool-progress":
      return upsertTool(
        state,
        event.toolUseId,
        event.name,
        (call) => applySubagentProgress(call, event.data) ?? { ...call, progress: call.progress + progressText(event.data) },
      );
    case "tool-end":
      return upsertTool(state, event.record.toolUseId, event.record.name, (call) => ({
        ...call,
        status: event.record.isError ? "error" : "completed",
        record: event.record,
        awaitingPermission: false,
        decision: call.decision ?? (event.record.decision ? { ...event.record.decision } : undefined),
      }));
    case "permission-request": {
      if (state.permissionRequests.some((request) => request.requestId === event.requestId)) return state;
      const { type: _type, ...request } = event;
      const withRequest = { ...state, permissionRequests: [...state.permissionRequests, request] };
      return upsertTool(withRequest, event.toolUseId, event.toolName, (call) => ({
        ...call,
        awaitingPermission: true,
        input: call.input ?? event.input,
      }));
    }
    case "permission-resolved":
      return { ...state, permissionRequests: state.permissionRequests.filter((request) => request.requestId !== event.requestId) };
    case "permission-decision":
      return upsertTool(state, event.toolUseId, event.toolName, (call) => ({
        ...call,
        awaitingPermission: false,
        decision: { behavior: event.behavior, reason: event.reason, waitedMs: event.waitedMs },
      }));
    case "permission-suggestion":
      return pushItem(state, { kind: "rule-suggestion", id: `event:${key}`, toolName: event.toolName, rule: event.rule, denials: event.denials });
    case "retry":
      return pushItem(state, {
        kind: "retry",
        id: `event:${key}`,
        attempt: event.attempt,
        maxAttempts: event.maxAttempts,
        delayMs: event.delayMs,
        status: event.status,
        message: event.message,
      });
    case "model-fallback":
      return pushItem(state, {
        kind: "notice",
        id: `event:${key}`,
        level: "warning",
        code: "model-fallback",
        message: `Switched from ${event.from} to ${event.to}: ${event.reason}`,
      });
    case "tombstone": {
      const dropped = state.items.find((item) => item.kind === "assistant" && item.id === event.messageId);
      if (!dropped || dropped.kind !== "assistant") return state;
      const toolCalls = { ...state.toolCalls };
      for (const block of dropped.blocks) if (block.type === "tool_use") delete toolCalls[block.toolUseId];
      return {
        ...state,
        toolCalls,
        items: state.items.filter((item) => item !== dropped),
        streamingId: state.streamingId === event.messageId ? null : state.streamingId,
      };
    }
    case "compact-boundary": {
      const measured = {
        ...state,
        contextTokens: event.postTokens,
        compactions: [...state.compactions, { preTokens: event.preTokens, postTokens: event.postTokens }],
      };
      const item: ChatItem = {
        kind: "compact",
        id: `event:${key}`,
        trigger: event.trigger,
        preTokens: event.preTokens,
        postTokens: event.postTokens,
        summarizedCount: event.summarizedCount,
      };
      // The boundary's transcript line may have come first: complete that marker instead of drawing a second.
      const last = state.items.at(-1);
      if (last?.kind === "compact" && !last.id.startsWith("event:")) return { ...measured, items: state.items.with(-1, { ...item, id: last.id }) };
      return pushItem(measured, item);
    }
    case "hook-runs":
      // Session-level hook runs (SessionStart, Stop, …) belong to the timeline; the chat shows their notices only.
      return state;
    case "todos-update":
      return { ...state, todos: event.todos };
    case "mode-change":
      return { ...state, permissionMode: event.mode };
    case "notice":
      return pushItem(state, { kind: "notice", id: `event:${key}`, level: event.level, code: event.code, message: event.message });
    case "error":
      return pushItem(state, { kind: "error", id: `event:${key}`, code: event.code, message: event.message });
    case "result":
      return pushItem(
        { ...state, running: false, streamingId: null, permissionRequests: [], items: stopStreaming(state.items), toolCalls: settleTools(state.toolCalls) },
        {
          kind: "result",
          id: `event:${key}`,
          reason: event.terminal.reason,
          numTurns: event.numTurns,
          durationMs: event.durationMs,
          usage: event.usage,
          model: state.model,
          errorMessage: event.terminal.error?.message,
          ...(event.tokenBudget ? { tokenBudget: event.tokenBudget } : {}),
        },
      );
  }
}

function pushItem(state: ChatState, item: ChatItem): ChatState {
  if (state.items.some((candidate) => candidate.id === item.id)) return state;
  return { ...state, items: [...state.items, item] };
}

/** Deltas that arrive without their `message-start` (the page joined mid-stream) go into a draft message. */
function ensureStreaming(state: ChatState, key: string): ChatState {
  if (state.streamingId) return state;
  const id = `${DRAFT_PREFIX}${key}`;
  return { ...state, streamingId: id, items: [...state.items, { kind: "assistant", id, model: state.model, streaming: true, partial: false, blocks: [] }] };
}

function streamingBlocks(state: ChatState): AssistantBlockView[] | undefined {
  if (!state.streamingId) return undefined;
  const item = state.items.findLast((candidate) => candidate.kind === "assistant" && candidate.id === state.streamingId);
  return item?.kind === "assistant" ? item.blocks : undefined;
}

function updateStreaming(state: ChatState, update: (blocks: AssistantBlockView[]) => AssistantBlockView[]): ChatState {
  if (!state.streamingId) return state;
  const index = state.items.findLastIndex((candidate) => candidate.kind === "assistant" && candidate.id === state.streamingId);
  const item = state.items[index];
  if (!item || item.kind !== "assistant") return state;
  return { ...state, items: state.items.with(index, { ...item, blocks: update(item.blocks) }) };
}

function updateStreamingBlock(
  state: ChatState,
  index: number,
  fallback: AssistantBlockView,
  update: (block: AssistantBlockView) => AssistantBlockView,
): ChatState {
  return updateStreaming(state, (blocks) => {
    // A delta without its block-start (joined mid-block) still shows its text.
    const copy = [...blocks];
    copy[index] = update(blocks[index] ?? fallback);
    return copy;
  });
}

function updateTool(state: ChatState, toolUseId: string, update: (call: ToolCallView) => ToolCallView): ChatState {
  const call = state.toolCalls[toolUseId];
  if (!call) return state;
  return { ...state, toolCalls: { ...state.toolCalls, [toolUseId]: update(call) } };
}

function upsertTool(state: ChatState, toolUseId: string, name: string, update: (call: ToolCallView) => ToolCallView): ChatState {
  const call = state.toolCalls[toolUseId] ?? newToolCall(toolUseId, name);
  return { ...state, toolCalls: { ...state.toolCalls, [toolUseId]: update(call) } };
}

function stopStreaming(items: ChatItem[]): ChatItem[] {
  if (!items.some((item) => item.kind === "assistant" && item.streaming)) return items;
  // A response still streaming when the run ended never completed (interrupted, or cut off).
  return items.map((item) => (item.kind === "assistant" && item.streaming ? { ...item, streaming: false, partial: true } : item));
}

/** When a run ends, a call that never reported back did not finish: show it as an error, not as forever pending. */
function settleTools(toolCalls: Record<string, ToolCallView>): Record<string, ToolCallView> {
  let changed = false;
  const settled: Record<string, ToolCallView> = {};
  for (const [id, call] of Object.entries(toolCalls)) {
    if (call.status === "running" || call.status === "pending" || call.awaitingPermission) {
      changed = true;
      settled[id] = { ...call, status: "error", awaitingPermission: false };
    } else settled[id] = call;
  }
  return changed ? settled : toolCalls;
}
