import type { ContentBlock, ToolResultBlock } from "../schema/content.ts";
import { isCompactBoundary, type ConversationMessage, type UserMessage } from "../schema/messages.ts";

export const INTERRUPTED_TOOL_RESULT = "Tool call interrupted: no result was recorded";

export interface RepairOptions {
  newUuid?: () => string;
}

/** Messages from the last compact boundary on (the boundary and its summary included). */
export function sinceLastCompactBoundary(messages: readonly ConversationMessage[]): ConversationMessage[] {
  for (let index = messages.length - 1; index >= 0; index--) {
    if (isCompactBoundary(messages[index]!)) return messages.slice(index);
  }
  return [...messages];
}

/**
 * Makes a loaded conversation valid to send again: keeps what follows the last compact boundary,
 * gives every tool_use that never got a result (the process died while the tool ran) a synthetic
 * `is_error` result placed right after that response's other results, and drops every tool_result
 * whose tool_use is not before it (its response was tombstoned, cut off, or compacted away).
 */
export function repairForResume(messages: readonly ConversationMessage[], options: RepairOptions = {}): ConversationMessage[] {
  const newUuid = options.newUuid ?? (() => globalThis.crypto.randomUUID());
  const window = sinceLastCompactBoundary(messages);
  const repaired: ConversationMessage[] = [];
  const issued = new Set<string>();
  const resulted = new Set<string>();
  let pending: { uuid: string; timestamp: string; ids: string[] } | undefined;

  const closePending = (): void => {
    if (pending === undefined) return;
    const missing = pending.ids.filter((id) => !resulted.has(id));
    if (missing.length > 0) {
      const last = repaired[repaired.length - 1];
      repaired.push(syntheticResults(missing, newUuid(), last?.uuid ?? pending.uuid, pending.timestamp));
      for (const id of missing) resulted.add(id);
    }
    pending = undefined;
  };

  for (const message of window) {
    if (message.type === "assistant") {
      closePending();
      const ids = message.message.content.flatMap((block) => (block.type === "tool_use" ? [block.id] : []));
      for (const id of ids) issued.add(id);
      repaired.push(message);
      if (ids.length > 0) pending = { uuid: message.uuid, timestamp: message.timestamp, ids };
      continue;
    }
    if (message.type === "user") {
      const kept = keepAnsweringResults(message, issued, resulted);
      if (kept === undefined) continue;
      if (!isToolResultMessage(kept)) closePending();
      repaired.push(kept);
      continue;
    }
    closePending();
    repaired.push(message);
  }
  closePending();
  return repaired;
}

function keepAnsweringResults(message: UserMessage, issued: Set<string>, resulted: Set<string>): UserMessage | undefined {
  const content = message.message.content;
  if (typeof content === "string") return message;
  const kept: ContentBlock[] = [];
  for (const block of content) {
    if (block.type === "tool_result") {
      if (!issued.has(block.tool_use_id) || resulted.has(block.tool_use_id)) continue;
      resulted.add(block.tool_use_id);
    }
    kept.push(block);
  }
  if (kept.length === content.length) return message;
  if (kept.length === 0) return undefined;
  return { ...message, message: { ...message.message, content: kept } };
}

function isToolResultMessage(message: UserMessage): boolean {
  const content = message.message.content;
  return typeof content !== "string" && content.length > 0 && content.every((block) => block.type === "tool_result");
}

function syntheticResults(toolUseIds: string[], uuid: string, parentUuid: string, timestamp: string): UserMessage {
  const content: ToolResultBlock[] = toolUseIds.map((id) => ({
    type: "tool_result",
    tool_use_id: id,
    content: INTERRUPTED_TOOL_RESULT,
    is_error: true,
  }));
  return { type: "user", uuid, parentUuid, timestamp, message: { role: "user", content } };
}
