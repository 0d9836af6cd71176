import type { ToolResultBlock } from "../schema/content.ts";
import { isCompactBoundary, type ConversationMessage } from "../schema/messages.ts";
import { describeToolCall, indexToolCalls, lastIndexWhere, replaceToolResults, toolResults, toolResultSize, type ToolCallInfo } from "./conversation.ts";
import { IMAGE_TOKEN_ESTIMATE, estimateTextTokens } from "./tokens.ts";

export const SNIPPED_PREFIX = "[Snipped to save context:";
export const CLEARED_PREFIX = "[Old tool result cleared:";

/** One tool result as snip and micro-compact see it. */
export type ToolResultEntry = {
  toolUseId: string;
  block: ToolResultBlock;
  call: ToolCallInfo | undefined;
  chars: number;
  tokens: number;
  /** Index in the messages after the last compact boundary. */
  messageIndex: number;
  /** Already a placeholder: nothing left to cut. */
  pruned: boolean;
};

export type PrunedResult = { toolUseId: string; toolName: string; chars: number; tokens: number; freedTokens: number };

export type PruneOutcome = {
  messages: ConversationMessage[];
  pruned: PrunedResult[];
  /** Estimated tokens removed (the placeholders' own cost deducted). */
  freedTokens: number;
};

function isPlaceholder(block: ToolResultBlock): boolean {
  return typeof block.content === "string" && (block.content.startsWith(SNIPPED_PREFIX) || block.content.startsWith(CLEARED_PREFIX));
}

/** Every tool result after the last compact boundary, oldest first, with its call and size. */
export function listToolResults(messages: readonly ConversationMessage[]): { entries: ToolResultEntry[]; viewStart: number } {
  const boundary = lastIndexWhere(messages, isCompactBoundary);
  const viewStart = boundary + 1;
  const view = messages.slice(viewStart);
  const calls = indexToolCalls(view);
  const entries: ToolResultEntry[] = [];
  view.forEach((message, messageIndex) => {
    for (const block of toolResults(message)) {
      const size = toolResultSize(block);
      entries.push({
        toolUseId: block.tool_use_id,
        block,
        call: calls.get(block.tool_use_id),
        chars: size.chars,
        tokens: Math.ceil(size.chars / 4) + size.images * IMAGE_TOKEN_ESTIMATE,
        messageIndex,
        pruned: isPlaceholder(block),
      });
    }
  });
  return { entries, viewStart };
}

function applyReplacements(
  messages: readonly ConversationMessage[],
  chosen: readonly ToolResultEntry[],
  placeholder: (entry: ToolResultEntry) => string,
): PruneOutcome {
  const replacements = new Map<string, string>();
  let freedTokens = 0;
  const pruned: PrunedResult[] = [];
  for (const entry of chosen) {
    const text = placeholder(entry);
    replacements.set(entry.toolUseId, text);
    const freed = Math.max(0, entry.tokens - estimateTextTokens(text));
    freedTokens += freed;
    pruned.push({ toolUseId: entry.toolUseId, toolName: entry.call?.name ?? "unknown", chars: entry.chars, tokens: entry.tokens, freedTokens: freed });
  }
  return { messages: replaceToolResults(messages, replacements), pruned, freedTokens };
}

/** Tools whose output can be fetched again without side effects; only for these does a placeholder suggest calling again. */
const REFETCHABLE_TOOLS = new Set(["Read", "Grep", "Glob", "WebFetch", "WebSearch", "BashOutput"]);

function refetchHint(entry: ToolResultEntry): string {
  return entry.call && REFETCHABLE_TOOLS.has(entry.call.name) ? " Call the tool again if you still need it." : "";
}

function sizeText(entry: ToolResultEntry): string {
  const images =
    entry.block.content !== undefined && typeof entry.block.content !== "string" ? entry.block.content.filter((part) => part.type === "image").length : 0;
  const chars = `${entry.chars.toLocaleString("en-US")} characters`;
  return images > 0 ? `${chars} and ${images} image${images === 1 ? "" : "s"}` : chars;
}

export type SnipOptions = {
  /** Tool results after the last boundary may use this many tokens in all. */
  budgetTokens: number;
  /** Once over budget, snip down to this fraction of it, so the prompt cache is not broken at every turn. */
  targetRatio: number;
  /** Only results at least this large are worth snipping. */
  minResultTokens: number;
};

/**
 * Snip: when the tool results together pass their budget, drop the oldest bulky ones (the
 * results of the latest response, which the model has not read yet, are never touched). Each
 * dropped result becomes a short placeholder naming the tool and the size cut; the block and its
 * id stay, so every tool_use keeps its tool_result.
 */
export function snipToolResults(messages: readonly ConversationMessage[], options: SnipOptions): PruneOutcome | null {
  const { entries, viewStart } = listToolResults(messages);
  const total = entries.reduce((sum, entry) => sum + entry.tokens, 0);
  if (total <= options.budgetTokens) return null;
  const lastCallAt = lastIndexWhere(messages.slice(viewStart), (message) => message.type === "assistant");
  const target = Math.floor(options.budgetTokens * options.targetRatio);
  const chosen: ToolResultEntry[] = [];
  let remaining = total;
  for (const entry of entries) {
    if (remaining <= target) break;
    if (entry.pruned || entry.tokens < options.minResultTokens) continue;
    if (entry.call === undefined || entry.call.messageIndex >= lastCallAt) continue;
    chosen.push(entry);
    remaining -= entry.tokens;
  }
  if (chosen.length === 0) return null;
  return applyReplacements(
    messages,
    chosen,
    (entry) =>
      `${SNIPPED_PREFIX} the result of ${describeToolCall(entry.call)} (${sizeText(entry)}, about ${entry.tokens.toLocaleString("en-US")} tokens) was removed.${refetchHint(entry)}]`,
  );
}

export const DEFAULT_CLEARABLE_TOOLS: readonly string[] = [
  "Read",
  "Bash",
  "BashOutput",
  "Grep",
  "Glob",
  "WebFetch",
  "WebSearch",
  "Edit",
  "MultiEdit",
  "Write",
  "NotebookEdit",
];

export type MicrocompactOptions = {
  /** Results of calls made in the last this-many responses stay as they are. */
  keepRecentTurns: number;
  /** Act only when at least this much would be freed: each pass breaks the prompt cache once. */
  minSavingsTokens: number;
  /** Results smaller than this are left alone (a placeholder would not be shorter). */
  minResultTokens: number;
  tools: readonly string[];
};

/**
 * Micro-compact: replace the contents of stale tool results (from calls older than the last N
 * responses) with a placeholder naming the call and what was cut. Only tools whose output can be
 * fetched again are cleared.
 */
export function microcompactToolResults(messages: readonly ConversationMessage[], options: MicrocompactOptions): PruneOutcome | null {
  const { entries, viewStart } = listToolResults(messages);
  const view = messages.slice(viewStart);
  const responseIndexes = view.flatMap((message, index) => (message.type === "assistant" ? [index] : []));
  if (responseIndexes.length <= options.keepRecentTurns) return null;
  const oldestKept = responseIndexes[responseIndexes.length - options.keepRecentTurns] ?? Number.POSITIVE_INFINITY;
  const clearable = new Set(options.tools);
  const chosen = entries.filter(
    (entry) =>
      !entry.pruned &&
      entry.call !== undefined &&
      entry.call.messageIndex < oldestKept &&
      clearable.has(entry.call.name) &&
      entry.tokens >= options.minResultTokens,
  );
  const savings = chosen.reduce((sum, entry) => sum + entry.tokens, 0);
  if (chosen.length === 0 || savings < options.minSavingsTokens) return null;
  return applyReplacements(
    messages,
    chosen,
    (entry) => `${CLEARED_PREFIX} ${describeToolCall(entry.call)} returned ${sizeText(entry)}; the output was removed to save context.${refetchHint(entry)}]`,
  );
}
