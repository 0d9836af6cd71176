import { describe, expect, it } from "vitest";
import { addLocalPrompt, applyEvents } from "./chat-reducer.ts";
import { initialChatState, type SessionEvent } from "./chat-types.ts";
import { assistantMessage, numbered, resultEvent, streamText, userMessage } from "./test-events.ts";

describe("streaming text", () => {
  it("grows the assistant message delta by delta, then replaces it with the assembled message", () => {
    const streaming: SessionEvent[] = [{ type: "message-start", messageId: "msg_1", model: "claude-test" }, ...streamText(0, ["Hel", "lo ", "world"])];
    const mid = applyEvents(initialChatState(), numbered(streaming));
    expect(mid.streamingId).toBe("msg_1");
    expect(mid.items).toEqual([
      { kind: "assistant", id: "msg_1", model: "claude-test", streaming: true, partial: false, blocks: [{ type: "text", text: "Hello world" }] },
    ]);
    expect(mid.lastEventId).toBe(String(streaming.length));

    const done = applyEvents(mid, numbered([{ type: "message", message: assistantMessage("msg_1", [{ type: "text", text: "Hello world!" }]) }], 10));
    expect(done.streamingId).toBeNull();
    expect(done.items).toHaveLength(1);
    expect(done.items[0]).toMatchObject({ kind: "assistant", streaming: false, blocks: [{ type: "text", text: "Hello world!" }] });
    expect(done.lastEventId).toBe("10");
  });

  it("keeps thinking apart from the answer", () => {
    const state = applyEvents(
      initialChatState(),
      numbered([
        { type: "message-start", messageId: "msg_t", model: "m" },
        { type: "block-start", index: 0, blockType: "thinking" },
        { type: "thinking-delta", index: 0, thinking: "Let me think" },
        { type: "block-start", index: 1, blockType: "text" },
        { type: "text-delta", index: 1, text: "Answer" },
      ]),
    );
    const item = state.items[0];
    expect(item?.kind === "assistant" && item.blocks).toEqual([
      { type: "thinking", text: "Let me think", redacted: false },
      { type: "text", text: "Answer" },
    ]);
  });

  it("drops a tombstoned draft and its tool calls", () => {
    const state = applyEvents(
      initialChatState(),
      numbered([
        { type: "message-start", messageId: "msg_cut", model: "m" },
        { type: "block-start", index: 0, blockType: "tool_use", toolUseId: "toolu_1", name: "Read" },
        { type: "tombstone", messageId: "msg_cut", reason: "stream cut" },
        { type: "message-start", messageId: "msg_retry", model: "m" },
      ]),
    );
    expect(state.items.map((item) => item.id)).toEqual(["msg_retry"]);
    expect(state.toolCalls).toEqual({});
    expect(state.streamingId).toBe("msg_retry");
  });

  it("replaces the optimistic prompt with the server's copy instead of showing it twice", () => {
    const local = addLocalPrompt(initialChatState(), "fix the bug", "1");
    const state = applyEvents(local, numbered([{ type: "message", message: userMessage("u-1", "fix the bug") }]));
    expect(state.items).toEqual([{ kind: "user", id: "u-1", text: "fix the bug" }]);
  });

  it("does not show meta user messages as the user's words", () => {
    const state = applyEvents(
      initialChatState(),
      numbered([{ type: "message", message: userMessage("u-meta", "Continue from where you left off.", { isMeta: true }) }]),
    );
    expect(state.items).toEqual([]);
  });

  it("ignores a replayed event it already applied (same message id)", () => {
    const start: SessionEvent = { type: "message-start", messageId: "msg_1", model: "m" };
    const once = applyEvents(initialChatState(), numbered([start, { type: "message", message: assistantMessage("msg_1", [{ type: "text", text: "hi" }]) }]));
    const twice = applyEvents(once, numbered([{ type: "message", message: assistantMessage("msg_1", [{ type: "text", text: "hi" }]) }], 3));
    expect(twice.items).toHaveLength(1);
  });
});

describe("session state and run end", () => {
  it("takes running, mode, model, todos and context size from session-state", () => {
    const state = applyEvents(
      initialChatState(),
      numbered([
        {
          type: "session-state",
          running: true,
          permissionMode: "acceptEdits",
          model: "claude-x",
          todos: [{ content: "a", status: "pending", activeForm: "doing a" }],
          contextTokens: 1234,
          queued: 0,
          backgroundAgents: [{ agentId: "agent_1", description: "Scan logs", status: "running", startedAt: 1, endedAt: null, resultPreview: null }],
        },
      ]),
    );
    expect(state).toMatchObject({ running: true, permissionMode: "acceptEdits", model: "claude-x", contextTokens: 1234 });
    expect(state.todos).toHaveLength(1);
    expect(state.backgroundAgents).toEqual([
      { agentId: "agent_1", description: "Scan logs", status: "running", startedAt: 1, endedAt: null, resultPreview: null },
    ]);
  });

  it("records compactions for the context meter", () => {
    const state = applyEvents(
      initialChatState(),
      numbered([{ type: "compact-boundary", trigger: "auto", preTokens: 150_000, postTokens: 20_000, summarizedCount: 40 }]),
    );
    expect(state.contextTokens).toBe(20_000);
    expect(state.compactions).toEqual([{ preTokens: 150_000, postTokens: 20_000 }]);
    expect(state.items[0]).toMatchObject({ kind: "compact", trigger: "auto", summarizedCount: 40 });
  });

  it("draws one compaction marker whichever of its event and its transcript line comes first", () => {
    const boundary = (uuid: string) =>
      ({
        type: "message",
        message: { type: "system", subtype: "compact_boundary", uuid, timestamp: "t", compactMetadata: { trigger: "manual", preTokens: 900 } },
      }) as const;
    const event = { type: "compact-boundary", trigger: "manual", preTokens: 900, postTokens: 120, summarizedCount: 4 } as const;
    for (const order of [
      [event, boundary("b1")],
      [boundary("b1"), event],
    ]) {
      const state = applyEvents(initialChatState(), numbered([...order]));
      expect(state.items).toEqual([{ kind: "compact", id: "b1", trigger: "manual", preTokens: 900, postTokens: 120, summarizedCount: 4 }]);
      expect(state.compactions).toEqual([{ preTokens: 900, postTokens: 120 }]);
    }
  });

  it("does not show again the messages a compaction keeps, when their originals are on screen", () => {
    const original = assistantMessage("msg_1", [{ type: "text", text: "kept answer" }]);
    const state = applyEvents(
      initialChatState(),
      numbered([
        { type: "message", message: userMessage("u1", "question") },
        { type: "message", message: original },
        { type: "message", message: userMessage("u1-copy", "question", { keptFrom: "u1" }) },
        { type: "message", message: assistantMessage("msg_1#kept-x", [{ type: "text", text: "kept answer" }], { uuid: "x", keptFrom: original.uuid }) },
      ]),
    );
    expect(state.items.map((item) => item.id)).toEqual(["u1", "msg_1"]);
    // Without the originals (a session opened after its compaction) the copies are the conversation.
    const fresh = applyEvents(initialChatState(), numbered([{ type: "message", message: userMessage("u1-copy", "question", { keptFrom: "u1" }) }]));
    expect(fresh.items).toEqual([{ kind: "user", id: "u1-copy", text: "question" }]);
  });

  it("ends the run on result, shows why, and keeps an interrupted response marked incomplete", () => {
    const state = applyEvents(
      initialChatState(),
      numbered([
        { type: "message-start", messageId: "msg_1", model: "m" },
        { type: "text-delta", index: 0, text: "half" },
        resultEvent("aborted_streaming", {
          usage: { inputTokens: 10, outputTokens: 5, cacheReadInputTokens: 0, cacheCreationInputTokens: 0 },
          durationMs: 900,
          durationApiMs: 800,
        }),
      ]),
    );
    expect(state.running).toBe(false);
    expect(state.streamingId).toBeNull();
    expect(state.items.at(-1)).toMatchObject({ kind: "result", reason: "aborted_streaming", durationMs: 900 });
    expect(state.items[0]).toMatchObject({ kind: "assistant", streaming: false, partial: true, blocks: [{ type: "text", text: "half" }] });
  });

  it("shows retries and errors as items", () => {
    const state = applyEvents(
      initialChatState(),
      numbered([
        { type: "retry", attempt: 1, maxAttempts: 10, delayMs: 500, status: 529, errorCode: "overloaded", message: "Overloaded" },
        { type: "error", code: "model_error", message: "boom", status: 500 },
      ]),
    );
    expect(state.items.map((item) => item.kind)).toEqual(["retry", "error"]);
  });
});

describe("joining a stream in the middle", () => {
  it("collects deltas without a message-start into a draft that the assembled message replaces", () => {
    const joined = applyEvents(
      initialChatState(),
      numbered(
        [
          { type: "thinking-delta", index: 0, thinking: "…so" },
          { type: "text-delta", index: 1, text: "rest of the answer" },
        ],
        40,
      ),
    );
    expect(joined.items).toHaveLength(1);
    expect(joined.items[0]).toMatchObject({
      kind: "assistant",
      streaming: true,
      blocks: [
        { type: "thinking", text: "…so" },
        { type: "text", text: "rest of the answer" },
      ],
    });

    const done = applyEvents(joined, numbered([{ type: "message", message: assistantMessage("msg_9", [{ type: "text", text: "whole answer" }]) }], 42));
    expect(done.items).toEqual([
      {
        kind: "assistant",
        id: "msg_9",
        uuid: "uuid-msg_9",
        model: "claude-test",
        streaming: false,
        partial: false,
        blocks: [{ type: "text", text: "whole answer" }],
      },
    ]);
    expect(done.streamingId).toBeNull();
  });

  it("on a resync drops what it holds of the conversation and rebuilds it from the snapshot that follows", () => {
    const before = applyEvents(
      initialChatState(),
      numbered([
        { type: "message", message: userMessage("u-old", "an old prompt") },
        { type: "message-start", messageId: "msg_cut", model: "m" },
        ...streamText(0, ["half an ans"]),
      ]),
    );
    expect(before.items).toHaveLength(2);
    const after = applyEvents(
      before,
      numbered(
        [
          { type: "resync" },
          { type: "message", message: userMessage("u-1", "the first prompt") },
          { type: "message", message: assistantMessage("msg_1", [{ type: "text", text: "its answer" }]) },
        ],
        50,
      ),
    );
    expect(after.items.map((item) => item.kind)).toEqual(["user", "assistant"]);
    expect(after.items[0]).toMatchObject({ kind: "user", text: "the first prompt" });
    expect(after.streamingId).toBeNull();
    expect(after.lastEventId).toBe("52");
  });
});
