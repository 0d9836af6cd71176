import type { ContentBlock, ToolResultBlock, ToolUseBlock } from "../schema/content.ts";
import type { ConversationMessage } from "../schema/messages.ts";
import type { ApiMessage } from "./port.ts";

export const ORPHANED_TOOL_USE_RESULT = "Tool call interrupted: no result was recorded for this call.";

type Turn = { role: "user" | "assistant"; blocks: ContentBlock[]; messageId?: string };

/**
 * Turns the conversation into what the Messages API accepts: only user and assistant turns,
 * strictly alternating, starting with the user, Cairn's fields stripped, and every `tool_use`
 * answered by a `tool_result` in the next user turn (an error result is inserted for an orphan,
 * and a result whose call is not in the previous turn is dropped).
 */
export function normalizeMessagesForAPI(messages: readonly ConversationMessage[]): ApiMessage[] {
  const turns: Turn[] = [];
  for (const message of messages) {
    if (message.type === "system") continue;
    const blocks = toBlocks(message.type === "user" ? message.message.content : message.message.content);
    const usable = blocks.filter(isSendable);
    if (usable.length === 0) continue;
    const messageId = message.type === "assistant" ? message.message.id : undefined;
    const last = turns.at(-1);
    if (last && last.role === message.type) {
      last.blocks.push(...usable);
      continue;
    }
    turns.push({ role: message.type, blocks: [...usable], ...(messageId ? { messageId } : {}) });
  }
  while (turns[0]?.role === "assistant") turns.shift();
  pairToolResults(turns);
  return turns.filter((turn) => turn.blocks.length > 0).map((turn) => ({ role: turn.role, content: turn.blocks }));
}

function pairToolResults(turns: Turn[]): void {
  for (let index = 0; index < turns.length; index++) {
    const turn = turns[index]!;
    if (turn.role !== "user") continue;
    const previous = index > 0 ? turns[index - 1] : undefined;
    const calls = previous?.role === "assistant" ? previous.blocks.filter(isToolUse) : [];
    const callIds = new Set(calls.map((call) => call.id));
    const results = new Map<string, ToolResultBlock>();
    for (const block of turn.blocks) {
      if (block.type === "tool_result" && callIds.has(block.tool_use_id) && !results.has(block.tool_use_id)) {
        results.set(block.tool_use_id, block);
      }
    }
    const others = turn.blocks.filter((block) => block.type !== "tool_result");
    // Results first, in the order of their calls; the API wants them at the start of the turn.
    const paired: ContentBlock[] = calls.map(
      (call) => results.get(call.id) ?? { type: "tool_result", tool_use_id: call.id, content: ORPHANED_TOOL_USE_RESULT, is_error: true },
    );
    turn.blocks = [...paired, ...others];
  }
  // An assistant turn with calls and no following user turn (e.g. the last message) gets one.
  const last = turns.at(-1);
  if (last?.role === "assistant") {
    const calls = last.blocks.filter(isToolUse);
    if (calls.length > 0) {
      turns.push({
        role: "user",
        blocks: calls.map((call) => ({ type: "tool_result", tool_use_id: call.id, content: ORPHANED_TOOL_USE_RESULT, is_error: true })),
      });
    }
  }
}

function toBlocks(content: string | ContentBlock[]): ContentBlock[] {
  return typeof content === "string" ? [{ type: "text", text: content }] : content.map(stripBlock);
}

/** Keeps only the fields the API defines for each block. */
function stripBlock(block: ContentBlock): ContentBlock {
  switch (block.type) {
    case "text":
      return { type: "text", text: block.text };
    case "thinking":
      return { type: "thinking", thinking: block.thinking, ...(block.signature ? { signature: block.signature } : {}) };
    case "redacted_thinking":
      return { type: "redacted_thinking", data: block.data };
    case "tool_use":
      return { type: "tool_use", id: block.id, name: block.name, input: isObject(block.input) ? block.input : {} };
    case "tool_result":
      return {
        type: "tool_result",
        tool_use_id: block.tool_use_id,
        ...(block.content !== undefined ? { content: block.content } : {}),
        ...(block.is_error ? { is_error: true } : {}),
      };
    case "image":
      return { type: "image", source: block.source };
  }
}

function isSendable(block: ContentBlock): boolean {
  if (block.type === "text") return block.text.trim().length > 0;
  if (block.type === "thinking") return Boolean(block.signature);
  return true;
}

function isToolUse(block: ContentBlock): block is ToolUseBlock {
  return block.type === "tool_use";
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
