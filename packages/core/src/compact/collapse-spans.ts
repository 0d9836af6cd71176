import { isCompactBoundary, type ConversationMessage, type UserMessage } from "../schema/messages.ts";
import { describeToolCall, isCompactAttachment, lastIndexWhere, toolResults, toolResultText, toolUses } from "./conversation.ts";
import { estimateMessageTokens } from "./tokens.ts";

export const COLLAPSED_PREFIX = "[Collapsed to save context:";

/** A span of older turns and the short summary that stands in for it once the collapse is committed. */
export type Collapse = {
  /** Also the uuid of the summary message, so applying a collapse again gives the same message (the prompt cache stays valid). */
  id: string;
  /** The span's messages, in order. */
  uuids: string[];
  summary: string;
  /** Estimated tokens of the span when it was staged, and of its summary. */
  spanTokens: number;
  summaryTokens: number;
};

/** Marks the message a committed collapse put in place of its span. */
export type CollapseFields = { collapsedUuids?: string[] };

function isHumanPrompt(message: ConversationMessage): boolean {
  if (message.type !== "user" || message.isMeta === true || message.isCompactSummary === true || isCompactAttachment(message)) return false;
  return toolResults(message).length === 0 && (message as CollapseFields).collapsedUuids === undefined;
}

/**
 * The spans that may be collapsed: maximal runs of complete tool rounds (a response and the results and
 * notes after it) between the user's own prompts, older than the last `keepRecentTurns` responses. The
 * user's prompts, summaries and earlier collapses are never part of a span, and a round whose calls
 * are not all answered inside it ends the run.
 */
export function collapsibleSpans(
  messages: readonly ConversationMessage[],
  options: { keepRecentTurns: number; exclude: ReadonlySet<string> },
): ConversationMessage[][] {
  const viewStart = lastIndexWhere(messages, isCompactBoundary) + 1;
  const responses: number[] = [];
  for (let index = viewStart; index < messages.length; index++) if (messages[index]!.type === "assistant") responses.push(index);
  if (responses.length <= options.keepRecentTurns) return [];
  const keepFrom = options.keepRecentTurns === 0 ? messages.length : responses[responses.length - options.keepRecentTurns]!;
  const spans: ConversationMessage[][] = [];
  let run: ConversationMessage[] = [];
  const close = () => {
    if (run.length > 0) spans.push(run);
    run = [];
  };
  let index = viewStart;
  while (index < keepFrom) {
    const message = messages[index]!;
    if (message.type !== "assistant" || options.exclude.has(message.uuid)) {
      close();
      index++;
      continue;
    }
    // One round: the response, then every user message up to the next response or prompt.
    let end = index + 1;
    while (end < keepFrom && messages[end]!.type === "user" && !isHumanPrompt(messages[end]!)) end++;
    const round = messages.slice(index, end);
    const answered = new Set(round.flatMap((entry) => toolResults(entry).map((block) => block.tool_use_id)));
    const complete = toolUses(message).every((use) => answered.has(use.id)) && round.every((entry) => !options.exclude.has(entry.uuid));
    if (complete) run.push(...round);
    else close();
    index = end;
  }
  close();
  return spans;
}

const oneLine = (text: string, max: number): string => {
  const flat = text.replace(/\s+/g, " ").trim();
  return flat.length > max ? `${flat.slice(0, max - 1)}…` : flat;
};

/** A short, factual summary of a span: what was called and what came back, and what the model said. */
export function summarizeSpan(span: readonly ConversationMessage[]): string {
  const results = new Map(span.flatMap((message) => toolResults(message).map((block) => [block.tool_use_id, block] as const)));
  const responses = span.filter((message) => message.type === "assistant").length;
  const lines = [`${COLLAPSED_PREFIX} ${responses} earlier response${responses === 1 ? "" : "s"} and their tool results, summarised]`];
  for (const message of span) {
    if (message.type !== "assistant") continue;
    const said = message.message.content.flatMap((block) => (block.type === "text" ? [block.text] : [])).join(" ");
    if (said.trim()) lines.push(`- You said: "${oneLine(said, 200)}"`);
    for (const use of toolUses(message)) {
      const result = results.get(use.id);
      const output = result ? toolResultText(result) : "";
      const status = result?.is_error ? "failed" : "returned";
      const first = oneLine(output.split("\n").find((line) => line.trim() !== "") ?? "", 100);
      lines.push(
        `- ${describeToolCall({ name: use.name, input: use.input })} ${status} ${output.length.toLocaleString("en-US")} characters${first ? `: ${first}` : ""}`,
      );
    }
  }
  lines.push("Call the tools again if you need any of this in full.");
  return lines.join("\n");
}

export function collapseMessage(collapse: Collapse, span: readonly ConversationMessage[], parentUuid: string | null): UserMessage {
  const first = span[0]!;
  const message: UserMessage & CollapseFields = {
    type: "user",
    uuid: collapse.id,
    parentUuid,
    timestamp: first.timestamp,
    isMeta: true,
    collapsedUuids: collapse.uuids,
    message: { role: "user", content: collapse.summary },
    ...(first.agentId === undefined ? {} : { agentId: first.agentId, isSidechain: true }),
  };
  return message;
}

/**
 * Puts each collapse whose span is still in the conversation, whole and in order, in place of that span.
 * Returns the new messages and the collapses applied (with the tokens their spans held there).
 */
export function applyCollapses(
  messages: readonly ConversationMessage[],
  collapses: readonly Collapse[],
): { messages: ConversationMessage[]; applied: Array<{ collapse: Collapse; freedTokens: number }> } {
  let current = [...messages];
  const applied: Array<{ collapse: Collapse; freedTokens: number }> = [];
  for (const collapse of collapses) {
    const start = current.findIndex((message) => message.uuid === collapse.uuids[0]);
    if (start < 0) continue;
    const span = current.slice(start, start + collapse.uuids.length);
    if (span.length !== collapse.uuids.length || span.some((message, offset) => message.uuid !== collapse.uuids[offset])) continue;
    const replacement = collapseMessage(collapse, span, current[start - 1]?.uuid ?? null);
    const spanTokens = span.reduce((sum, message) => sum + estimateMessageTokens(message), 0);
    applied.push({ collapse, freedTokens: Math.max(0, spanTokens - estimateMessageTokens(replacement)) });
    current = [...current.slice(0, start), replacement, ...current.slice(start + span.length)];
  }
  return { messages: current, applied };
}
