import { describe, expect, it } from "vitest";
import { applyEvents } from "../chat/chat-reducer.ts";
import { assistantMessage, numbered, streamText, userMessage } from "../chat/test-events.ts";
import { stateFromSharedConversation, withoutPermissionRequests } from "./share-view-state.ts";

const messages = [
  userMessage("u1", "show me [REDACTED:anthropic-key]"),
  assistantMessage("msg_1", [
    { type: "text", text: "Reading it." },
    { type: "tool_use", id: "t_read", name: "Read", input: { file_path: "/w/<img src=x>.md" } },
  ]),
  userMessage("u2", [{ type: "tool_result", tool_use_id: "t_read", content: "1\t<script>x</script>" }]),
];

describe("a shared conversation as chat state", () => {
  it("shows the prompts, answers and tool results it was given, as they are", () => {
    const state = stateFromSharedConversation({ messages, running: false, lastEventId: null });
    expect(state.items.map((item) => item.kind)).toEqual(["user", "assistant"]);
    expect(state.items[0]).toMatchObject({ kind: "user", text: "show me [REDACTED:anthropic-key]" });
    expect(state.toolCalls.t_read).toMatchObject({ status: "completed", input: { file_path: "/w/<img src=x>.md" }, result: { text: "1\t<script>x</script>" } });
    expect(state.lastEventId).toBeNull();
  });

  it("continues a live share after the event the server named", () => {
    expect(stateFromSharedConversation({ messages, running: true, lastEventId: "42" })).toMatchObject({ lastEventId: "42", running: true });
  });

  it("folds live events in with the IDE's reducer", () => {
    const base = stateFromSharedConversation({ messages, running: true, lastEventId: "10" });
    const next = applyEvents(base, numbered([{ type: "message-start", messageId: "msg_2", model: "claude-test" }, ...streamText(0, ["New ", "answer"])], 11));
    const last = next.items.at(-1);
    expect(last).toMatchObject({ kind: "assistant", id: "msg_2", streaming: true, blocks: [{ type: "text", text: "New answer" }] });
    expect(next.lastEventId).toBe("15");
  });

  it("drops questions meant for the owner", () => {
    const base = stateFromSharedConversation({ messages, running: true, lastEventId: "1" });
    const asked = applyEvents(base, [
      {
        id: "2",
        event: {
          type: "permission-request",
          requestId: "r1",
          toolUseId: "t_x",
          toolName: "Bash",
          input: { command: "ls" },
          reason: { type: "default", reason: "ask" },
          suggestions: [],
        },
      },
    ]);
    expect(asked.permissionRequests).toHaveLength(1);
    expect(asked.toolCalls.t_x?.awaitingPermission).toBe(true);
    const viewed = withoutPermissionRequests(asked);
    expect(viewed.permissionRequests).toEqual([]);
    expect(viewed.toolCalls.t_x).toMatchObject({ name: "Bash", status: "pending", awaitingPermission: false });
  });
});
