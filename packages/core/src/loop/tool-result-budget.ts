import { toolResults, toolResultText } from "../compact/conversation.ts";
import type { ContentBlock } from "../schema/content.ts";
import type { AgentEvent } from "../schema/events.ts";
import type { ConversationMessage } from "../schema/messages.ts";
import type { ToolResultFiles } from "../tools/tool-result-files.ts";

/** Claude Code's per-message budget: all the tool results answering one response, together. */
export const MAX_TOOL_RESULTS_PER_MESSAGE_CHARS = 200_000;
const PREVIEW_CHARS = 2_000;

export type ToolResultBudgetOptions = {
  maxChars: number;
  files: ToolResultFiles;
  signal: AbortSignal;
  /** Replacements already made, by tool_use id: the same result gets the same text every time, so the prompt cache holds. */
  replaced: Map<string, string>;
};

type Candidate = { toolUseId: string; text: string };

function persistedText(path: string, text: string): string {
  const preview = text.slice(0, PREVIEW_CHARS);
  return [
    "<persisted-output>",
    `Output too large (${text.length.toLocaleString("en-US")} characters). Full output saved to: ${path}`,
    "",
    `Preview (first ${preview.length.toLocaleString("en-US")} characters):`,
    preview,
    text.length > preview.length ? "…" : "",
    "Read the file for the rest (with offset and limit for a part of it).",
    "</persisted-output>",
  ].join("\n");
}

/**
 * The per-message tool-result budget: when the results answering one response together pass
 * `maxChars`, the largest are saved to disk and replaced by a preview and the path, until the rest
 * fits. Applied to what is sent; the transcript keeps the full results.
 */
export async function applyToolResultBudget(
  messages: readonly ConversationMessage[],
  options: ToolResultBudgetOptions,
): Promise<{ messages: ConversationMessage[]; events: AgentEvent[] }> {
  const events: AgentEvent[] = [];
  const groups: Candidate[][] = [];
  for (const message of messages) {
    if (message.type === "assistant") groups.push([]);
    const group = groups.at(-1);
    if (!group) continue;
    for (const block of toolResults(message)) {
      // A result with images is left whole: a text preview would lose them.
      const hasImages = Array.isArray(block.content) && block.content.some((part) => part.type === "image");
      if (!hasImages) group.push({ toolUseId: block.tool_use_id, text: toolResultText(block) });
    }
  }
  const replacements = new Map<string, string>();
  for (const group of groups) {
    let total = group.reduce((sum, entry) => sum + entry.text.length, 0);
    if (total <= options.maxChars) continue;
    const fresh: string[] = [];
    for (const entry of [...group].sort((left, right) => right.text.length - left.text.length)) {
      if (total <= options.maxChars) break;
      let replacement = options.replaced.get(entry.toolUseId);
      if (replacement === undefined) {
        const path = await options.files.save(entry.toolUseId, entry.text, options.signal);
        replacement = persistedText(path, entry.text);
        options.replaced.set(entry.toolUseId, replacement);
        fresh.push(path);
      }
      replacements.set(entry.toolUseId, replacement);
      total -= entry.text.length - replacement.length;
    }
    if (fresh.length > 0) {
      events.push({
        type: "notice",
        level: "info",
        code: "tool_results_saved",
        message: `One turn's tool results passed ${options.maxChars.toLocaleString("en-US")} characters: saved ${fresh.length} to disk (${fresh.join(", ")}) and sent a preview.`,
      });
    }
  }
  if (replacements.size === 0) return { messages: [...messages], events };
  const replaced = messages.map((message) => {
    if (message.type !== "user" || typeof message.message.content === "string") return message;
    if (!message.message.content.some((block) => block.type === "tool_result" && replacements.has(block.tool_use_id))) return message;
    const content = message.message.content.map((block): ContentBlock => {
      const replacement = block.type === "tool_result" ? replacements.get(block.tool_use_id) : undefined;
      return replacement === undefined || block.type !== "tool_result" ? block : { ...block, content: replacement };
    });
    return { ...message, message: { ...message.message, content } };
  });
  return { messages: replaced, events };
}
