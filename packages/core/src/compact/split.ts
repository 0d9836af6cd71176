import type { ConversationMessage } from "../schema/messages.ts";
import { isCompactAttachment, toolResults, toolUses } from "./conversation.ts";
import { estimateMessageTokens } from "./tokens.ts";

/**
 * `safe[i]` says whether the conversation may be cut just before message `i`: no tool_use before
 * the cut has its tool_result after it, and no response written as several lines is split.
 */
export function safeCutPoints(view: readonly ConversationMessage[]): boolean[] {
  const count = view.length;
  const open = new Map<string, number>();
  // +1 at the first unsafe index of a pair, -1 after its last: a running sum > 0 means "inside a pair".
  const delta = new Array<number>(count + 2).fill(0);
  view.forEach((message, index) => {
    for (const result of toolResults(message)) {
      const usedAt = open.get(result.tool_use_id);
      if (usedAt === undefined) continue;
      open.delete(result.tool_use_id);
      delta[usedAt + 1]! += 1;
      delta[index + 1]! -= 1;
    }
    for (const use of toolUses(message)) open.set(use.id, index);
  });
  const safe: boolean[] = [];
  let inside = 0;
  for (let index = 0; index <= count; index++) {
    inside += delta[index]!;
    const previous = view[index - 1];
    const current = view[index];
    const splitsResponse =
      previous?.type === "assistant" && current?.type === "assistant" && previous.message.id !== "" && previous.message.id === current.message.id;
    safe.push(inside === 0 && !splitsResponse);
  }
  return safe;
}

/** A message worth summarising: not a previous summary, attachment or system line. */
function isSubstantive(message: ConversationMessage): boolean {
  if (message.type === "system") return false;
  if (message.type === "user" && (message.isCompactSummary === true || isCompactAttachment(message))) return false;
  return true;
}

export type KeepPolicy = {
  /** Responses (assistant messages) kept verbatim at most. */
  keepTurns: number;
  /** Estimated tokens kept verbatim at most. */
  keepTokens: number;
};

export type Split = { summarize: ConversationMessage[]; keep: ConversationMessage[] };

/**
 * Splits the messages after the last boundary into the part to summarise and the recent tail to
 * keep verbatim: the longest tail within the policy that starts at a safe cut, so a tool_use is
 * never separated from its result. Returns null when there is nothing to summarise.
 */
export function splitForCompaction(view: readonly ConversationMessage[], policy: KeepPolicy): Split | null {
  const safe = safeCutPoints(view);
  let cut = view.length;
  let tokens = 0;
  let turns = 0;
  for (let index = view.length - 1; index >= 0; index--) {
    const message = view[index]!;
    tokens += estimateMessageTokens(message);
    if (message.type === "assistant") turns++;
    if (tokens > policy.keepTokens || turns > policy.keepTurns) break;
    if (safe[index]) cut = index;
  }
  // The summary must cover something new: give up kept messages until it does.
  while (!view.slice(0, cut).some(isSubstantive)) {
    if (cut >= view.length) return null;
    let next = cut + 1;
    while (next < view.length && !safe[next]) next++;
    cut = next;
  }
  return { summarize: view.slice(0, cut), keep: view.slice(cut) };
}
