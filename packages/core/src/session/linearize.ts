import { isCompactBoundary, type ConversationMessage } from "../schema/messages.ts";

/**
 * Re-links a rebuilt conversation as one straight chain (each message's parent is the one before),
 * for writing it to a new file (fork, import, export). Claude Code's branch points (parallel tool
 * results hanging off their own tool_use line, per-block lines merged away) no longer exist after
 * loading, so their old parent links would dangle. A compact boundary keeps `parentUuid: null` and
 * records its predecessor as `logicalParentUuid`, as Claude Code writes it.
 */
export function linearize(messages: readonly ConversationMessage[]): ConversationMessage[] {
  let previous: string | null = null;
  return messages.map((message) => {
    const parentUuid = previous;
    previous = message.uuid;
    if (isCompactBoundary(message)) return { ...message, parentUuid: null, logicalParentUuid: parentUuid };
    return { ...message, parentUuid };
  });
}
