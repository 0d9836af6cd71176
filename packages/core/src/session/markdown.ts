import type { ContentBlock, ToolResultContent } from "../schema/content.ts";
import type { ConversationMessage } from "../schema/messages.ts";

export interface MarkdownHeader {
  title: string | undefined;
  sessionId: string;
  cwd: string | undefined;
}

/**
 * A transcript as Markdown for reading and sharing. Everything the model or a tool produced is
 * placed in fenced blocks (the fence outgrows any backtick run inside), never as live Markdown/HTML.
 */
export function* renderMarkdown(header: MarkdownHeader, messages: readonly ConversationMessage[]): Generator<string> {
  const title = header.title ?? firstPrompt(messages) ?? `Session ${header.sessionId}`;
  yield `# ${escapeInline(title.length > 120 ? `${title.slice(0, 119)}…` : title)}\n\n`;
  yield `- Session: \`${codeSpan(header.sessionId)}\`\n`;
  if (header.cwd !== undefined) yield `- Working directory: \`${codeSpan(header.cwd)}\`\n`;
  yield `- Messages: ${messages.length}\n\n`;
  for (const message of messages) yield renderMessage(message);
}

function firstPrompt(messages: readonly ConversationMessage[]): string | undefined {
  for (const message of messages) {
    if (message.type !== "user" || message.isMeta === true || message.isCompactSummary === true) continue;
    const content = message.message.content;
    if (typeof content === "string") return content.trim() || undefined;
    if (content.some((block) => block.type === "tool_result")) continue;
    const text = content
      .flatMap((block) => (block.type === "text" ? [block.text] : []))
      .join(" ")
      .trim();
    if (text !== "") return text;
  }
  return undefined;
}

function renderMessage(message: ConversationMessage): string {
  switch (message.type) {
    case "system":
      if (message.subtype === "compact_boundary") return `---\n\n*Conversation compacted (${message.timestamp})*\n\n`;
      return `> **System (${message.subtype})**: ${escapeInline(message.content ?? "")}\n\n`;
    case "user": {
      const content = message.message.content;
      const blocks = typeof content === "string" ? [{ type: "text" as const, text: content }] : content;
      const onlyResults = blocks.length > 0 && blocks.every((block) => block.type === "tool_result");
      const heading = message.isCompactSummary ? "Summary of earlier conversation" : onlyResults ? "Tool results" : "User";
      return `## ${heading}\n\n${blocks.map(renderBlock).join("")}`;
    }
    case "assistant":
      return `## Assistant\n\n${message.message.content.map(renderBlock).join("")}`;
  }
}

function renderBlock(block: ContentBlock): string {
  switch (block.type) {
    case "text":
      return `${fenced(block.text, "text")}\n`;
    case "thinking":
      return `*Thinking*\n\n${fenced(block.thinking, "text")}\n`;
    case "redacted_thinking":
      return "*Thinking (redacted)*\n\n";
    case "tool_use":
      return `**Tool call** \`${codeSpan(block.name)}\` (\`${codeSpan(block.id)}\`)\n\n${fenced(JSON.stringify(block.input ?? null, null, 2), "json")}\n`;
    case "tool_result":
      return `**Tool result** (\`${codeSpan(block.tool_use_id)}\`)${block.is_error ? " — error" : ""}\n\n${fenced(resultText(block.content), "text")}\n`;
    case "image":
      return `*[image: ${escapeInline(block.source.media_type)}]*\n\n`;
  }
}

function resultText(content: ToolResultContent | undefined): string {
  if (content === undefined) return "";
  if (typeof content === "string") return content;
  return content.map((part) => (part.type === "text" && "text" in part && typeof part.text === "string" ? part.text : `[${part.type}]`)).join("\n");
}

function fenced(text: string, language: string): string {
  let longestRun = 0;
  for (const match of text.matchAll(/`+/g)) longestRun = Math.max(longestRun, match[0].length);
  const fence = "`".repeat(Math.max(3, longestRun + 1));
  return `${fence}${language}\n${text}${text.endsWith("\n") ? "" : "\n"}${fence}\n`;
}

function escapeInline(text: string): string {
  return text.replace(/[\\`*_[\]<>#|]/g, (character) => `\\${character}`).replace(/\s+/g, " ");
}

function codeSpan(text: string): string {
  return text.replace(/[`\r\n]/g, "");
}
