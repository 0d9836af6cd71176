import { describe, expect, it } from "vitest";
import { applyEvents } from "./chat-reducer.ts";
import { initialChatState, type SessionEvent } from "./chat-types.ts";
import { assistantMessage, numbered, resultEvent, userMessage } from "./test-events.ts";

const record = (toolUseId: string, name: string, isError = false) => ({
  toolUseId,
  name,
  startedAt: 1000,
  endedAt: 1250,
  durationMs: 250,
  permissionWaitMs: 0,
  isError,
  decision: { behavior: "allow" as const, reason: { type: "mode" as const, mode: "default" as const, reason: "read-only" }, waitedMs: 0, asked: false },
});

function toolTurn(): SessionEvent[] {
  return [
    { type: "message-start", messageId: "msg_1", model: "m" },
    { type: "block-start", index: 0, blockType: "tool_use", toolUseId: "t_glob", name: "Glob" },
    { type: "tool-input-delta", index: 0, partialJson: '{"pattern":' },
    { type: "tool-input-delta", index: 0, partialJson: '"**/*.ts"}' },
    { type: "block-stop", index: 0 },
    { type: "block-start", index: 1, blockType: "tool_use", toolUseId: "t_read", name: "Read" },
    { type: "block-stop", index: 1 },
  ];
}

describe("tool-call cards", () => {
  it("is pending while the model streams its input, with the input parsed once whole", () => {
    const state = applyEvents(initialChatState(), numbered(toolTurn()));
    expect(state.toolCalls.t_glob).toMatchObject({ name: "Glob", status: "pending", input: { pattern: "**/*.ts" } });
    const item = state.items[0];
    expect(item?.kind === "assistant" && item.blocks).toEqual([
      { type: "tool_use", toolUseId: "t_glob" },
      { type: "tool_use", toolUseId: "t_read" },
    ]);
  });

  it("runs, streams progress, and completes with duration, decision and result", () => {
    const state = applyEvents(
      initialChatState(),
      numbered([
        ...toolTurn(),
        {
          type: "message",
          message: assistantMessage("msg_1", [
            { type: "tool_use", id: "t_glob", name: "Glob", input: { pattern: "**/*.ts" } },
            { type: "tool_use", id: "t_read", name: "Read", input: { file_path: "/w/a.ts" } },
          ]),
        },
        { type: "tool-start", toolUseId: "t_glob", name: "Glob", input: { pattern: "**/*.ts" }, startedAt: 1000, batch: 0 },
        { type: "tool-start", toolUseId: "t_read", name: "Read", input: { file_path: "/w/a.ts" }, startedAt: 1000, batch: 0 },
        { type: "tool-progress", toolUseId: "t_glob", name: "Glob", data: { type: "bash_progress", stream: "stdout", chunk: "a.ts\n" } },
        { type: "tool-end", record: record("t_glob", "Glob") },
      ]),
    );
    expect(state.toolCalls.t_read?.status).toBe("running");
    expect(state.toolCalls.t_read?.input).toEqual({ file_path: "/w/a.ts" });
    expect(state.toolCalls.t_glob).toMatchObject({ status: "completed", progress: "a.ts\n", record: { durationMs: 250 }, decision: { behavior: "allow" } });

    const withResult = applyEvents(
      state,
      numbered(
        [{ type: "message", message: userMessage("u-r", [{ type: "tool_result", tool_use_id: "t_read", content: [{ type: "text", text: "1\thello" }] }]) }],
        50,
      ),
    );
    expect(withResult.toolCalls.t_read).toMatchObject({ status: "completed", result: { text: "1\thello", isError: false } });
    expect(withResult.items.filter((item) => item.kind === "user")).toEqual([]);
  });

  it("marks a failed call as error", () => {
    const state = applyEvents(
      initialChatState(),
      numbered([
        ...toolTurn(),
        { type: "tool-start", toolUseId: "t_read", name: "Read", input: {}, startedAt: 1, batch: 0 },
        { type: "tool-end", record: record("t_read", "Read", true) },
        { type: "message", message: userMessage("u-e", [{ type: "tool_result", tool_use_id: "t_read", content: "File does not exist.", is_error: true }]) },
      ]),
    );
    expect(state.toolCalls.t_read).toMatchObject({ status: "error", result: { text: "File does not exist.", isError: true } });
  });

  it("holds permission requests until resolved and shows the decision with its reason", () => {
    const request: SessionEvent = {
      type: "permission-request",
      requestId: "req_1",
      toolUseId: "t_edit",
      toolName: "Edit",
      input: { file_path: "/w/a.ts", old_string: "a", new_string: "b" },
      reason: { type: "default", reason: "edits ask in default mode" },
      suggestions: ["Edit(/w/**)"],
    };
    const asked = applyEvents(initialChatState(), numbered([request, request]));
    expect(asked.permissionRequests).toHaveLength(1);
    expect(asked.toolCalls.t_edit).toMatchObject({ awaitingPermission: true, name: "Edit" });

    const answered = applyEvents(
      asked,
      numbered(
        [
          { type: "permission-resolved", requestId: "req_1", behavior: "deny" },
          {
            type: "permission-decision",
            toolUseId: "t_edit",
            toolName: "Edit",
            behavior: "deny",
            reason: { type: "user", scope: "reject", feedback: "use tabs" },
            waitedMs: 1200,
          },
        ],
        3,
      ),
    );
    expect(answered.permissionRequests).toEqual([]);
    expect(answered.toolCalls.t_edit?.decision).toEqual({ behavior: "deny", reason: { type: "user", scope: "reject", feedback: "use tabs" }, waitedMs: 1200 });
    expect(answered.toolCalls.t_edit?.awaitingPermission).toBe(false);
  });

  it("settles calls left unfinished when the run ends", () => {
    const state = applyEvents(
      initialChatState(),
      numbered([...toolTurn(), { type: "tool-start", toolUseId: "t_glob", name: "Glob", input: {}, startedAt: 1, batch: 0 }, resultEvent("aborted_tools")]),
    );
    expect(state.toolCalls.t_glob?.status).toBe("error");
    expect(state.toolCalls.t_read?.status).toBe("error");
  });
});

describe("rule suggestions after repeated denials", () => {
  it("become an item the chat can offer for this session", () => {
    const state = applyEvents(initialChatState(), numbered([{ type: "permission-suggestion", toolName: "Bash", rule: "Bash(npm test:*)", denials: 3 }]));
    expect(state.items).toEqual([{ kind: "rule-suggestion", id: expect.stringMatching(/^event:/), toolName: "Bash", rule: "Bash(npm test:*)", denials: 3 }]);
  });
});
