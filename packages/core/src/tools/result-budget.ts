import type { ToolResultContent } from "../schema/content.ts";

export const DEFAULT_MAX_RESULT_CHARS = 100_000;

/**
 * Cuts a tool result that is larger than its budget, keeping the head and the tail and saying
 * plainly how much was left out, so the model knows to narrow its request.
 */
export function applyResultBudget(content: ToolResultContent, maxChars: number): { content: ToolResultContent; truncatedChars: number } {
  if (typeof content === "string") return cutText(content, maxChars);
  let truncatedChars = 0;
  const blocks = content.map((block) => {
    if (block.type !== "text" || typeof block.text !== "string") return block;
    const cut = cutText(block.text, maxChars);
    truncatedChars += cut.truncatedChars;
    return { ...block, text: cut.content };
  });
  return { content: blocks, truncatedChars };
}

function cutText(text: string, maxChars: number): { content: string; truncatedChars: number } {
  if (text.length <= maxChars) return { content: text, truncatedChars: 0 };
  const head = Math.floor(maxChars * 0.8);
  const tail = maxChars - head;
  const truncatedChars = text.length - head - tail;
  const marker = `\n\n[... ${truncatedChars} characters truncated: this result exceeded the tool-result budget of ${maxChars} characters. Narrow the request (a smaller range, a more specific pattern) to see the rest. ...]\n\n`;
  return { content: text.slice(0, head) + marker + text.slice(text.length - tail), truncatedChars };
}
