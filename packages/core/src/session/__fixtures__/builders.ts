// Message builders for the session tests: deterministic uuids and timestamps.
import type { AssistantMessage, ContentBlock, SystemMessage, UserMessage } from "../../schema/index.ts";

export const U = (n: number): string => `00000000-0000-4000-8000-${String(n).padStart(12, "0")}`;
export const at = (second: number): string => new Date(Date.UTC(2026, 10, 29, 10, 0, second)).toISOString();

export function userPrompt(n: number, parent: number | null, text: string): UserMessage {
  return { type: "user", uuid: U(n), parentUuid: parent === null ? null : U(parent), timestamp: at(n), message: { role: "user", content: text } };
}

export function toolResults(n: number, parent: number, ids: string[], text = "ok"): UserMessage {
  const content: ContentBlock[] = ids.map((id) => ({ type: "tool_result", tool_use_id: id, content: `${text} ${id}` }));
  return { type: "user", uuid: U(n), parentUuid: U(parent), timestamp: at(n), message: { role: "user", content } };
}

export function assistantReply(n: number, parent: number, text: string, toolUseIds: string[] = []): AssistantMessage {
  const content: ContentBlock[] = [
    { type: "text", text },
    ...toolUseIds.map((id): ContentBlock => ({ type: "tool_use", id, name: "Read", input: { file_path: `/w/${id}.ts` } })),
  ];
  return {
    type: "assistant",
    uuid: U(n),
    parentUuid: U(parent),
    timestamp: at(n),
    message: {
      id: `msg_${n}`,
      type: "message",
      role: "assistant",
      model: "claude-opus-5-5",
      content,
      stop_reason: toolUseIds.length > 0 ? "tool_use" : "end_turn",
      usage: { input_tokens: 10, output_tokens: 5 },
    },
  };
}

export function compactBoundary(n: number, logicalParent: number): SystemMessage {
  return {
    type: "system",
    uuid: U(n),
    parentUuid: null,
    logicalParentUuid: U(logicalParent),
    timestamp: at(n),
    subtype: "compact_boundary",
    content: "Conversation compacted",
    compactMetadata: { trigger: "auto", preTokens: 150_000 },
  };
}
