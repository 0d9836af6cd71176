import { describe, expect, it } from "vitest";
import type { SessionSnapshot } from "../trpc/types.ts";
import { applyEvents } from "./chat-reducer.ts";
import { stateFromSnapshot } from "./chat-snapshot.ts";
import { assistantMessage, numbered, userMessage } from "./test-events.ts";

const snapshot: SessionSnapshot = {
  sessionId: "s1",
  title: "fix it",
  messages: [
    userMessage("u1", "fix the typo"),
    assistantMessage("msg_1", [
      { type: "text", text: "Looking." },
      { type: "tool_use", id: "t_read", name: "Read", input: { file_path: "/w/a.md" } },
      { type: "tool_use", id: "t_edit", name: "Edit", input: { file_path: "/w/a.md", old_string: "teh", new_string: "the" } },
    ]),
    userMessage("u2", [{ type: "tool_result", tool_use_id: "t_read", content: "1\tteh cat" }], {
      toolCall: { toolUseId: "t_read", name: "Read", startedAt: 1, endedAt: 5, durationMs: 4, permissionWaitMs: 0, isError: false },
    }),
  ],
  running: true,
  permissionMode: "default",
  model: "claude-test",
  todos: [],
  contextTokens: 900,
  contextWindow: 200_000,
  pendingPermissions: [
    {
      requestId: "req_1",
      toolUseId: "t_edit",
      toolName: "Edit",
      input: { file_path: "/w/a.md", old_string: "teh", new_string: "the" },
      reason: { type: "default", reason: "ask" },
      suggestions: [],
    },
  ],
  lastSeq: 57,
  streamingFromSeq: null,
  queued: 0,
  backgroundAgents: [{ agentId: "agent_9", description: "Review the diff", status: "completed", startedAt: 5, endedAt: 9, resultPreview: "Looks fine." }],
};

describe("state from session.get", () => {
  it("rebuilds the conversation, tool results and open questions, and resumes after lastSeq", () => {
    const state = stateFromSnapshot(snapshot);
    expect(state.items.map((item) => item.kind)).toEqual(["user", "assistant"]);
    expect(state.toolCalls.t_read).toMatchObject({ status: "completed", result: { text: "1\tteh cat" }, record: { durationMs: 4 } });
    expect(state.toolCalls.t_edit).toMatchObject({ status: "pending", awaitingPermission: true });
    expect(state.permissionRequests.map((request) => request.requestId)).toEqual(["req_1"]);
    expect(state).toMatchObject({ running: true, contextTokens: 900, contextWindow: 200_000, lastEventId: "57" });
    expect(state.backgroundAgents.map((agent) => `${agent.agentId}:${agent.status}`)).toEqual(["agent_9:completed"]);
  });

  it("continues with live events after the snapshot", () => {
    const state = applyEvents(
      stateFromSnapshot(snapshot),
      numbered(
        [
          { type: "permission-resolved", requestId: "req_1", behavior: "allow" },
          { type: "tool-start", toolUseId: "t_edit", name: "Edit", input: {}, startedAt: 10, batch: 1 },
        ],
        58,
      ),
    );
    expect(state.permissionRequests).toEqual([]);
    expect(state.toolCalls.t_edit?.status).toBe("running");
    expect(state.lastEventId).toBe("59");
  });
});

describe("joining while a response streams", () => {
  it("resumes from just before the streaming message, so its text so far is replayed", () => {
    const streaming = { ...snapshot, pendingPermissions: [], lastSeq: 70, streamingFromSeq: 61 };
    const state = stateFromSnapshot(streaming);
    expect(state.lastEventId).toBe("61");
    const replayed = applyEvents(
      state,
      numbered(
        [
          { type: "message", message: userMessage("u1", "fix the typo") },
          { type: "message-start", messageId: "msg_2", model: "m" },
          { type: "text-delta", index: 0, text: "So far" },
        ],
        62,
      ),
    );
    expect(replayed.items.map((item) => item.kind)).toEqual(["user", "assistant", "assistant"]);
    expect(replayed.items.at(-1)).toMatchObject({ id: "msg_2", streaming: true, blocks: [{ type: "text", text: "So far" }] });
  });
});
