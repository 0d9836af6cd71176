import type { StopReason, Turn } from "./scenario.ts";

export const DEFAULT_SIGNATURE = "sig_sim";
export const DEFAULT_MODEL = "model-sim";

export type AssistantBlock =
  | { type: "text"; text: string }
  | { type: "thinking"; thinking: string; signature: string }
  | { type: "redacted_thinking"; data: string }
  | { type: "tool_use"; id: string; name: string; input: Record<string, unknown> };

export type AssistantUsage = {
  input_tokens: number;
  output_tokens: number;
  cache_creation_input_tokens: number;
  cache_read_input_tokens: number;
};

/** The shape of a non-streaming `POST /v1/messages` response. */
export type AssistantMessage = {
  id: string;
  type: "message";
  role: "assistant";
  model: string;
  content: AssistantBlock[];
  stop_reason: StopReason;
  stop_sequence: null;
  usage: AssistantUsage;
};

export type MessageContext = {
  messageId: string;
  /** Used for deterministic tool-use ids: `toolu_sim_<turnIndex>_<blockIndex>`. */
  turnIndex: number;
  requestModel: string | undefined;
  estimatedInputTokens: number;
};

export function buildAssistantMessage(turn: Turn, context: MessageContext): AssistantMessage {
  const content = turn.content.map((block, blockIndex): AssistantBlock => {
    switch (block.type) {
      case "text":
        return { type: "text", text: block.text };
      case "thinking":
        return { type: "thinking", thinking: block.thinking, signature: block.signature ?? DEFAULT_SIGNATURE };
      case "redacted_thinking":
        return { type: "redacted_thinking", data: block.data };
      case "tool_use":
        return {
          type: "tool_use",
          id: block.id ?? `toolu_sim_${context.turnIndex}_${blockIndex}`,
          name: block.name,
          input: block.input,
        };
    }
  });
  const hasToolUse = content.some((block) => block.type === "tool_use");
  return {
    id: context.messageId,
    type: "message",
    role: "assistant",
    model: turn.model ?? context.requestModel ?? DEFAULT_MODEL,
    content,
    stop_reason: turn.stop_reason ?? (hasToolUse ? "tool_use" : "end_turn"),
    stop_sequence: null,
    usage: {
      input_tokens: turn.usage?.input_tokens ?? context.estimatedInputTokens,
      output_tokens: turn.usage?.output_tokens ?? estimateOutputTokens(content),
      cache_creation_input_tokens: turn.usage?.cache_creation_input_tokens ?? 0,
      cache_read_input_tokens: turn.usage?.cache_read_input_tokens ?? 0,
    },
  };
}

function estimateOutputTokens(content: readonly AssistantBlock[]): number {
  const characters = content.reduce((total, block) => total + outputCharacters(block), 0);
  return Math.max(1, Math.ceil(characters / 4));
}

function outputCharacters(block: AssistantBlock): number {
  switch (block.type) {
    case "text":
      return block.text.length;
    case "thinking":
      return block.thinking.length;
    case "redacted_thinking":
      return block.data.length;
    case "tool_use":
      return block.name.length + JSON.stringify(block.input).length;
  }
}
