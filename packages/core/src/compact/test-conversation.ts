import type { ContentBlock, ToolResultContent } from "../schema/content.ts";
import type { AssistantMessage, ConversationMessage, UserMessage } from "../schema/messages.ts";
import type { Usage } from "../schema/usage.ts";
import type { CompactionInput } from "./port.ts";
import type { ModelClient } from "../model/port.ts";

/** Builds conversations for compaction tests: each message chained to the one before, ids predictable. */
export function conversationBuilder(prefix = "m") {
  let next = 0;
  const messages: ConversationMessage[] = [];
  const push = <T extends ConversationMessage>(message: Omit<T, "uuid" | "parentUuid" | "timestamp">): T => {
    const full = {
      ...message,
      uuid: `${prefix}-${++next}`,
      parentUuid: messages.at(-1)?.uuid ?? null,
      timestamp: new Date(Date.UTC(2026, 0, 1, 0, 0, next)).toISOString(),
    } as T;
    messages.push(full);
    return full;
  };
  return {
    messages,
    user(content: string | ContentBlock[]): UserMessage {
      return push<UserMessage>({ type: "user", message: { role: "user", content } });
    },
    assistant(content: ContentBlock[], usage?: Partial<Usage>): AssistantMessage {
      return push<AssistantMessage>({
        type: "assistant",
        message: {
          id: `msg-${next + 1}`,
          role: "assistant",
          model: "test-model",
          content,
          ...(usage ? { usage: { input_tokens: 0, output_tokens: 0, ...usage } } : {}),
        },
      });
    },
    text(text: string, usage?: Partial<Usage>): AssistantMessage {
      return this.assistant([{ type: "text", text }], usage);
    },
    call(id: string, name: string, input: Record<string, unknown>, usage?: Partial<Usage>): AssistantMessage {
      return this.assistant([{ type: "tool_use", id, name, input }], usage);
    },
    result(id: string, content: ToolResultContent, isError = false): UserMessage {
      return push<UserMessage>({
        type: "user",
        message: { role: "user", content: [{ type: "tool_result", tool_use_id: id, content, ...(isError ? { is_error: true } : {}) }] },
      });
    },
    /** One tool round: the call and its result. */
    round(id: string, name: string, input: Record<string, unknown>, output: string, usage?: Partial<Usage>): void {
      this.call(id, name, input, usage);
      this.result(id, output);
    },
  };
}

export function compactionInput(messages: ConversationMessage[], client: ModelClient, overrides: Partial<CompactionInput> = {}): CompactionInput {
  return {
    messages,
    model: "test-model",
    systemPrompt: ["You are a test agent."],
    signal: new AbortController().signal,
    client,
    lastInputTokens: null,
    ...overrides,
  };
}

/** Every tool_use in the messages has exactly one tool_result after it, and every result has its call before it. */
export function pairingIsIntact(messages: readonly ConversationMessage[]): boolean {
  const open = new Set<string>();
  const answered = new Set<string>();
  for (const message of messages) {
    if (message.type === "system" || typeof message.message.content === "string") continue;
    for (const block of message.message.content) {
      if (block.type === "tool_use") open.add(block.id);
      if (block.type === "tool_result") {
        if (!open.has(block.tool_use_id) || answered.has(block.tool_use_id)) return false;
        answered.add(block.tool_use_id);
      }
    }
  }
  return [...open].every((id) => answered.has(id));
}
