import type { AssistantMessage, ContentBlock, UserMessage } from "@cairn/core/schema";
import type { SessionEvent } from "./chat-types.ts";

/** Small builders for realistic engine events in the reducer's tests. */
export function assistantMessage(messageId: string, content: ContentBlock[], extra: Partial<AssistantMessage> = {}): AssistantMessage {
  return {
    type: "assistant",
    uuid: `uuid-${messageId}`,
    timestamp: "2026-01-01T00:00:00.000Z",
    message: { id: messageId, role: "assistant", model: "claude-test", content },
    ...extra,
  };
}

export function userMessage(uuid: string, content: UserMessage["message"]["content"], extra: Partial<UserMessage> = {}): UserMessage {
  return { type: "user", uuid, timestamp: "2026-01-01T00:00:00.000Z", message: { role: "user", content }, ...extra };
}

export function streamText(index: number, chunks: string[]): SessionEvent[] {
  return [
    { type: "block-start", index, blockType: "text" },
    ...chunks.map((text): SessionEvent => ({ type: "text-delta", index, text })),
    { type: "block-stop", index },
  ];
}

export function numbered(events: SessionEvent[], start = 1): { id: string; event: SessionEvent }[] {
  return events.map((event, offset) => ({ id: String(start + offset), event }));
}

type ResultEvent = Extract<SessionEvent, { type: "result" }>;

/** The `result` event that ends a run, with zero usage and timings unless given. */
export function resultEvent(reason: ResultEvent["terminal"]["reason"], extra: Partial<Omit<ResultEvent, "type" | "terminal">> = {}): ResultEvent {
  return {
    type: "result",
    terminal: { reason, turnCount: 1 },
    usage: { inputTokens: 0, outputTokens: 0, cacheReadInputTokens: 0, cacheCreationInputTokens: 0 },
    numTurns: 1,
    durationMs: 1,
    durationApiMs: 1,
    permissionDenials: [],
    ...extra,
  };
}
