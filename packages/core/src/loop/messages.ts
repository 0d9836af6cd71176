import type { ConversationMessage, UserMessage } from "../schema/messages.ts";

export function createUserMessage(
  options: { uuid: string; timestamp: string; parentUuid: string | null; content: UserMessage["message"]["content"] } & Pick<
    UserMessage,
    "isMeta" | "agentId" | "isSidechain"
  >,
): UserMessage {
  const { content, ...rest } = options;
  return { type: "user", ...withoutUndefined(rest), message: { role: "user", content } };
}

/** The conversation the model sees: from the last compact boundary on. */
export function messagesAfterCompactBoundary(messages: readonly ConversationMessage[]): ConversationMessage[] {
  for (let index = messages.length - 1; index >= 0; index--) {
    const message = messages[index]!;
    if (message.type === "system" && message.subtype === "compact_boundary") return messages.slice(index + 1);
  }
  return [...messages];
}

/**
 * The conversation with the user context (memory files, skill listing) in front, as a meta user
 * message that the API normalisation merges into the first user turn. It is rebuilt for every
 * request and never written to the transcript, so an edited memory file reaches the next request.
 */
export function withUserContext(messages: ConversationMessage[], reminder: string | null, timestamp: string): ConversationMessage[] {
  if (reminder === null) return messages;
  return [createUserMessage({ uuid: "user-context", timestamp, parentUuid: null, content: reminder, isMeta: true }), ...messages];
}

function withoutUndefined<T extends Record<string, unknown>>(value: T): T {
  return Object.fromEntries(Object.entries(value).filter(([, item]) => item !== undefined)) as T;
}
