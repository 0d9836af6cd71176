import { describe, expect, it } from "vitest";
import type { AgentEvent } from "@cairn/core/schema";
import { applyEvents } from "./chat-reducer.ts";
import { initialChatState, type SessionEvent } from "./chat-types.ts";
import { assistantMessage, numbered, resultEvent, userMessage } from "./test-events.ts";

const record = (toolUseId: string, name: string, isError = false) => ({
  toolUseId,
  name,
  startedAt: 1000,
  endedAt: 1400,
  durationMs: 400,
  permissionWaitMs: 0,
  isError,
  decision: { behavior: "allow" as const, reason: { type: "mode" as const, mode: "default" as const, reason: "read-only" }, waitedMs: 0, asked: false },
});

/** An engine event, or a wire-shaped one from the shared builders. */
type SubEvent = AgentEvent | Extract<SessionEvent, { type: "result" }>;

/** A `tool-progress` event of the Agent call `parent`, as the Agent tool sends it. */
function progress(parent: string, agentId: string, description: string, event: SubEvent): SessionEvent {
  return { type: "tool-progress", toolUseId: parent, name: "Agent", data: { type: "subagent", agentId, agentType: "general-purpose", description, event } };
}

function agentCalls(): SessionEvent[] {
  const calls = [
    { type: "tool_use" as const, id: "t_a", name: "Agent", input: { description: "Find the config", prompt: "…" } },
    { type: "tool_use" as const, id: "t_b", name: "Agent", input: { description: "Count tests", prompt: "…" } },
  ];
  return [
    { type: "message", message: assistantMessage("msg_1", calls) },
    { type: "tool-start", toolUseId: "t_a", name: "Agent", input: calls[0]!.input, startedAt: 1000, batch: 0 },
    { type: "tool-start", toolUseId: "t_b", name: "Agent", input: calls[1]!.input, startedAt: 1000, batch: 0 },
  ];
}

describe("Agent tool cards: subagent progress", () => {
  it("lists each subagent's tool calls as they happen, parallel subagents in their own cards", () => {
    const a = (event: SubEvent) => progress("t_a", "agent-a", "Find the config", event);
    const b = (event: SubEvent) => progress("t_b", "agent-b", "Count tests", event);
    const state = applyEvents(
      initialChatState(),
      numbered([
        ...agentCalls(),
        a({ type: "request-start", model: "m", turn: 1 }),
        a({ type: "message", message: assistantMessage("sub_1", [{ type: "tool_use", id: "s_glob", name: "Glob", input: { pattern: "**/*.json" } }]) }),
        b({ type: "message", message: assistantMessage("sub_2", [{ type: "tool_use", id: "s_grep", name: "Grep", input: { pattern: "it\\(" } }]) }),
        a({ type: "tool-start", toolUseId: "s_glob", name: "Glob", input: { pattern: "**/*.json" }, startedAt: 1000, batch: 0 }),
        b({ type: "tool-start", toolUseId: "s_grep", name: "Grep", input: { pattern: "it\\(" }, startedAt: 1000, batch: 0 }),
        a({ type: "tool-end", record: record("s_glob", "Glob") }),
        a({
          type: "message",
          message: assistantMessage("sub_3", [{ type: "tool_use", id: "s_read", name: "Read", input: { file_path: "/w/tsconfig.json" } }]),
        }),
      ]),
    );
    const first = state.toolCalls.t_a?.subagent;
    expect(first).toMatchObject({ agentId: "agent-a", agentType: "general-purpose", description: "Find the config", done: false });
    expect(first?.steps).toEqual([
      { toolUseId: "s_glob", name: "Glob", summary: "**/*.json", status: "completed", durationMs: 400 },
      { toolUseId: "s_read", name: "Read", summary: "/w/tsconfig.json", status: "pending" },
    ]);
    expect(state.toolCalls.t_b?.subagent?.steps).toEqual([{ toolUseId: "s_grep", name: "Grep", summary: "it\\(", status: "running" }]);
    // Progress of a subagent is not dumped as text into the card's output.
    expect(state.toolCalls.t_a?.progress).toBe("");
    // The subagents' own calls never become top-level cards.
    expect(Object.keys(state.toolCalls).sort()).toEqual(["t_a", "t_b"]);
  });

  it("shows the subagent's final answer, marks it done, and keeps the Agent result", () => {
    const a = (event: SubEvent) => progress("t_a", "agent-a", "Find the config", event);
    const state = applyEvents(
      initialChatState(),
      numbered([
        ...agentCalls(),
        a({
          type: "message",
          message: assistantMessage("sub_1", [{ type: "tool_use", id: "s_bash", name: "Bash", input: { command: "ls", description: "List files" } }]),
        }),
        a({ type: "tool-start", toolUseId: "s_bash", name: "Bash", input: { command: "ls" }, startedAt: 1000, batch: 0 }),
        a({ type: "tool-end", record: record("s_bash", "Bash", true) }),
        a({ type: "message", message: assistantMessage("sub_2", [{ type: "text", text: "The config is tsconfig.json." }]) }),
        a(resultEvent("completed")),
        { type: "tool-end", record: record("t_a", "Agent") },
        { type: "message", message: userMessage("u_1", [{ type: "tool_result", tool_use_id: "t_a", content: "The config is tsconfig.json." }]) },
      ]),
    );
    const call = state.toolCalls.t_a;
    expect(call?.subagent).toMatchObject({ text: "The config is tsconfig.json.", done: true, reason: "completed" });
    expect(call?.subagent?.steps).toEqual([{ toolUseId: "s_bash", name: "Bash", summary: "List files", status: "error", durationMs: 400 }]);
    expect(call).toMatchObject({ status: "completed", result: { text: "The config is tsconfig.json.", isError: false } });
    // The other subagent never reported: it has no progress view yet.
    expect(state.toolCalls.t_b?.subagent).toBeUndefined();
  });

  it("settles a subagent's unfinished calls when it ends (interrupted)", () => {
    const a = (event: SubEvent) => progress("t_a", "agent-a", "Find the config", event);
    const state = applyEvents(
      initialChatState(),
      numbered([
        ...agentCalls(),
        a({ type: "tool-start", toolUseId: "s_grep", name: "Grep", input: { pattern: "x" }, startedAt: 1000, batch: 0 }),
        a(resultEvent("aborted_tools")),
      ]),
    );
    expect(state.toolCalls.t_a?.subagent).toMatchObject({ done: true, reason: "aborted_tools", steps: [{ toolUseId: "s_grep", status: "error" }] });
  });

  it("keeps other tools' progress, and a malformed subagent payload, as text", () => {
    const state = applyEvents(
      initialChatState(),
      numbered([
        ...agentCalls(),
        { type: "tool-progress", toolUseId: "t_a", name: "Agent", data: { type: "subagent", agentId: "agent-a" } },
        { type: "tool-progress", toolUseId: "t_bash", name: "Bash", data: { type: "bash_progress", stream: "stdout", chunk: "hello\n" } },
      ]),
    );
    expect(state.toolCalls.t_a?.subagent).toBeUndefined();
    expect(state.toolCalls.t_a?.progress).toContain('"agentId":"agent-a"');
    expect(state.toolCalls.t_bash?.progress).toBe("hello\n");
  });
});
