import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import type { AssistantMessage, ConversationMessage, ToolResultBlock, ToolUseBlock } from "../schema/index.ts";
import { loadTranscript } from "./transcript-reader.ts";

const fixtures = fileURLToPath(new URL("./__fixtures__/claude-code", import.meta.url));

function toolUses(messages: ConversationMessage[]): ToolUseBlock[] {
  return messages.flatMap((message) => (message.type === "assistant" ? message.message.content.filter((block) => block.type === "tool_use") : []));
}

function toolResults(messages: ConversationMessage[]): ToolResultBlock[] {
  return messages.flatMap((message) =>
    message.type === "user" && typeof message.message.content !== "string" ? message.message.content.filter((block) => block.type === "tool_result") : [],
  );
}

describe("loading real Claude Code transcripts", () => {
  it("rebuilds explore-edit: one assistant message per response, every parallel tool result present", async () => {
    const loaded = await loadTranscript(`${fixtures}/explore-edit.jsonl`);

    expect(loaded.report).toMatchObject({ malformedLines: 0, tornTail: false, brokenLinks: 0, invalidMessages: 0 });
    // queue-operation ×2, attachment ×7, atis-latch ×3, api-request ×4, tools-used ×3, last-prompt ×3, cost-state
    expect(loaded.report.unknownLines).toBe(23);
    expect(loaded.messages.map((message) => message.type)).toEqual([
      "user",
      "assistant",
      "user",
      "user",
      "user",
      "assistant",
      "user",
      "assistant",
      "user",
      "assistant",
    ]);

    const first = loaded.messages[1] as AssistantMessage;
    expect(first.message.id).toBe("msg_01QBxSCPpoASOb7klUSQC6Ti8R");
    expect(first.message.content.map((block) => block.type)).toEqual(["thinking", "text", "tool_use", "tool_use", "tool_use"]);
    expect(first.message.content.filter((block) => block.type === "tool_use").map((block) => block.name)).toEqual(["Glob", "Grep", "Read"]);

    const uses = toolUses(loaded.messages).map((block) => block.id);
    const results = toolResults(loaded.messages).map((block) => block.tool_use_id);
    expect(uses).toHaveLength(5);
    expect(results).toEqual(uses);
  });

  it("puts each tool result after the response that asked for it and keeps Claude Code's extra fields", async () => {
    const loaded = await loadTranscript(`${fixtures}/explore-edit.jsonl`);
    const seen = new Set<string>();
    for (const message of loaded.messages) {
      for (const block of toolUses([message])) seen.add(block.id);
      for (const block of toolResults([message])) expect(seen.has(block.tool_use_id)).toBe(true);
    }
    const result = loaded.messages[2]!;
    expect(result).toMatchObject({ permissionDecision: { decision: "accept" }, toolUseResult: { numFiles: 33 } });
    // The file's envelope is not part of the message.
    expect(result).not.toHaveProperty("sessionId");
    expect(result).not.toHaveProperty("cwd");
  });

  it("rebuilds permission-deny with the refused call's is_error result", async () => {
    const loaded = await loadTranscript(`${fixtures}/permission-deny.jsonl`);
    expect(loaded.report).toMatchObject({ malformedLines: 0, tornTail: false, unknownLines: 19 });
    expect(loaded.messages.map((message) => message.type)).toEqual(["user", "assistant", "user", "assistant"]);
    const [denied] = toolResults(loaded.messages);
    expect(denied).toMatchObject({ is_error: true });
    expect(toolUses(loaded.messages).map((block) => block.id)).toEqual([denied!.tool_use_id]);
    const [prompt] = loaded.messages;
    expect(prompt).toMatchObject({ type: "user", message: { content: "Delete the x directory." } });
  });
});
