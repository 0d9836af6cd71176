import { type ConversationMessage, isCompactBoundary } from "../schema/messages.ts";

/**
 * The context compacted away so far, as the latest compact boundary in `messages` records it: its
 * `compactedTokens`, or its `preTokens` for a boundary written before Cairn counted them (a lower bound).
 * Undefined when the conversation was never compacted.
 */
export function compactedTokensOf(messages: readonly ConversationMessage[]): number | undefined {
  for (let index = messages.length - 1; index >= 0; index--) {
    const message = messages[index]!;
    if (!isCompactBoundary(message)) continue;
    return message.compactMetadata?.compactedTokens ?? message.compactMetadata?.preTokens ?? 0;
  }
  return undefined;
}
