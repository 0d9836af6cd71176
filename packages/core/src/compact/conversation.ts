import type { ContentBlock, ToolResultBlock, ToolUseBlock } from "../schema/content.ts";
import type { ConversationMessage } from "../schema/messages.ts";

/**
 * Fields Cairn adds to the lines a compaction writes (loose schemas keep them; Claude Code skips them).
 * `keptFrom`: a kept recent message re-written after the boundary, naming the original's uuid.
 * `isCompactAttachment`: the meta message re-attaching the todo list and recently read files.
 */
export type KeptCopyFields = { keptFrom?: string };
export type CompactAttachmentFields = { isCompactAttachment?: boolean };

export function isKeptCopy(message: ConversationMessage): boolean {
  return typeof (message as KeptCopyFields).keptFrom === "string";
}

export function isCompactAttachment(message: ConversationMessage): boolean {
  return message.type === "user" && (message as CompactAttachmentFields).isCompactAttachment === true;
}

export function toolUses(message: ConversationMessage): ToolUseBlock[] {
  if (message.type !== "assistant") return [];
  return message.message.content.filter((block): block is ToolUseBlock => block.type === "tool_use");
}

export function toolResults(message: ConversationMessage): ToolResultBlock[] {
  if (message.type !== "user" || typeof message.message.content === "string") return [];
  return message.message.content.filter((block): block is ToolResultBlock => block.type === "tool_result");
}

export function lastIndexWhere<T>(items: readonly T[], predicate: (item: T) => boolean): number {
  for (let index = items.length - 1; index >= 0; index--) if (predicate(items[index]!)) return index;
  return -1;
}

/** Where each tool call of the conversation is, and what it was asked, by tool_use id. */
export type ToolCallInfo = { name: string; input: unknown; messageIndex: number };

export function indexToolCalls(messages: readonly ConversationMessage[]): Map<string, ToolCallInfo> {
  const calls = new Map<string, ToolCallInfo>();
  messages.forEach((message, messageIndex) => {
    for (const block of toolUses(message)) calls.set(block.id, { name: block.name, input: block.input, messageIndex });
  });
  return calls;
}

/** The characters of a tool result's text, and how many images it carries. */
export function toolResultSize(block: ToolResultBlock): { chars: number; images: number } {
  const content = block.content;
  if (content === undefined) return { chars: 0, images: 0 };
  if (typeof content === "string") return { chars: content.length, images: 0 };
  let chars = 0;
  let images = 0;
  for (const part of content) {
    if (part.type === "image") images++;
    else if (part.type === "text" && typeof part.text === "string") chars += part.text.length;
    else chars += JSON.stringify(part).length;
  }
  return { chars, images };
}

/** The text of a tool result (images left out). */
export function toolResultText(block: ToolResultBlock): string {
  const content = block.content;
  if (content === undefined) return "";
  if (typeof content === "string") return content;
  return content.flatMap((part) => (part.type === "text" && typeof part.text === "string" ? [part.text] : [])).join("\n");
}

/** A short description of what a call was about, for placeholders: the file, command or pattern. */
export function describeToolCall(info: Pick<ToolCallInfo, "name" | "input"> | undefined): string {
  if (!info) return "a tool";
  const input = typeof info.input === "object" && info.input !== null ? (info.input as Record<string, unknown>) : {};
  const subject = ["file_path", "command", "pattern", "path", "url", "query", "description"]
    .map((key) => input[key])
    .find((value): value is string => typeof value === "string" && value.length > 0);
  if (!subject) return info.name;
  const oneLine = subject.replace(/\s+/g, " ").trim();
  return `${info.name} (${oneLine.length > 80 ? `${oneLine.slice(0, 77)}...` : oneLine})`;
}

/**
 * Replaces the content of the given tool results, keeping each block's id and error flag so the
 * tool_use/tool_result pairing stays intact. Messages without a replaced block are returned as they are.
 */
export function replaceToolResults(messages: readonly ConversationMessage[], replacements: ReadonlyMap<string, string>): ConversationMessage[] {
  if (replacements.size === 0) return [...messages];
  return messages.map((message) => {
    if (message.type !== "user" || typeof message.message.content === "string") return message;
    if (!message.message.content.some((block) => block.type === "tool_result" && replacements.has(block.tool_use_id))) return message;
    const content = message.message.content.map((block): ContentBlock => {
      if (block.type !== "tool_result") return block;
      const replacement = replacements.get(block.tool_use_id);
      return replacement === undefined ? block : { ...block, content: replacement };
    });
    return { ...message, message: { ...message.message, content } };
  });
}
