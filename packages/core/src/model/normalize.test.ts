import { describe, expect, it } from "vitest";
import type { ConversationMessage, UserMessage } from "../schema/messages.ts";
import { normalizeMessagesForAPI, ORPHANED_TOOL_USE_RESULT } from "./normalize.ts";

const at = "2026-01-01T00:00:00.000Z";
const user = (uuid: string, content: UserMessage["message"]["content"], extra = {}): ConversationMessage =>
  ({ type: "user", uuid, timestamp: at, message: { role: "user", content }, ...extra }) as ConversationMessage;
const assistant = (uuid: string, id: string, content: unknown[]): ConversationMessage =>
  ({ type: "assistant", uuid, timestamp: at, message: { id, role: "assistant", model: "m", content } }) as ConversationMessage;

describe("normalizeMessagesForAPI", () => {
  it("strips Cairn's fields and system lines, and merges consecutive turns of one role", () => {
    const messages: ConversationMessage[] = [
      user("u1", "hi", { toolCall: { anything: true }, isMeta: false }),
      { type: "system", subtype: "informational", uuid: "s1", timestamp: at, content: "note" },
      user("u2", [{ type: "text", text: "more" }]),
      assistant("a1", "msg_1", [{ type: "text", text: "part one", citations: null }]),
      assistant("a2", "msg_1", [{ type: "text", text: "part two" }]),
    ];
    expect(normalizeMessagesForAPI(messages)).toEqual([
      {
        role: "user",
        content: [
          { type: "text", text: "hi" },
          { type: "text", text: "more" },
        ],
      },
      {
        role: "assistant",
        content: [
          { type: "text", text: "part one" },
          { type: "text", text: "part two" },
        ],
      },
    ]);
  });

  it("gives every tool_use a tool_result, puts results first in call order, and drops strays", () => {
    const messages: ConversationMessage[] = [
      user("u1", "go"),
      assistant("a1", "msg_1", [
        { type: "tool_use", id: "t1", name: "Read", input: {} },
        { type: "tool_use", id: "t2", name: "Read", input: {} },
      ]),
      user("r2", [{ type: "tool_result", tool_use_id: "t2", content: "two" }]),
      user("stray", [{ type: "tool_result", tool_use_id: "nope", content: "?" }]),
      user("note", "and a note"),
      assistant("a2", "msg_2", [{ type: "tool_use", id: "t3", name: "Bash", input: { command: "ls" } }]),
    ];
    const api = normalizeMessagesForAPI(messages);
    expect(api[2]).toEqual({
      role: "user",
      content: [
        { type: "tool_result", tool_use_id: "t1", content: ORPHANED_TOOL_USE_RESULT, is_error: true },
        { type: "tool_result", tool_use_id: "t2", content: "two" },
        { type: "text", text: "and a note" },
      ],
    });
    expect(api.at(-1)).toEqual({ role: "user", content: [{ type: "tool_result", tool_use_id: "t3", content: ORPHANED_TOOL_USE_RESULT, is_error: true }] });
  });

  it("drops unsigned thinking and empty text, and never starts with the assistant", () => {
    const messages: ConversationMessage[] = [
      assistant("a0", "msg_0", [{ type: "text", text: "orphan" }]),
      user("u1", "hello"),
      assistant("a1", "msg_1", [
        { type: "thinking", thinking: "cut", signature: "" },
        { type: "text", text: "  " },
        { type: "text", text: "answer" },
      ]),
    ];
    expect(normalizeMessagesForAPI(messages)).toEqual([
      { role: "user", content: [{ type: "text", text: "hello" }] },
      { role: "assistant", content: [{ type: "text", text: "answer" }] },
    ]);
  });
});
