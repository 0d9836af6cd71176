import { describe, expect, it } from "vitest";
import type { PermissionGate, PermissionPrompter, PermissionRequest } from "../permissions/port.ts";
import type { ToolResultBlock } from "../schema/content.ts";
import type { ConversationMessage } from "../schema/messages.ts";
import { INTERRUPTED_TOOL_RESULT } from "../session/repair.ts";
import { createScriptedModel, createTestTool, eventsOf, testDeps } from "../testing/index.ts";
import { baseParams, prompt } from "./query-test-params.ts";
import { resumeTurn, unansweredToolCalls } from "./resume-turn.ts";
import type { AgentEvent, Terminal } from "../schema/events.ts";
import type { RunPromptResult } from "./run-prompt.ts";

async function collectEvents(run: AsyncGenerator<AgentEvent, RunPromptResult>): Promise<{ events: AgentEvent[]; terminal: Terminal }> {
  const events: AgentEvent[] = [];
  for (;;) {
    const step = await run.next();
    if (step.done) return { events, terminal: step.value.terminal };
    events.push(step.value);
  }
}

const askGate: PermissionGate = {
  async check() {
    return { behavior: "ask", reason: { type: "default", reason: "no rule allows Write" }, suggestions: [] };
  },
};

/** A turn cut off after a response with two calls: `r1` answered, `w1` (waiting for permission) and `b1` (running) not. */
function cutOffTurn(): ConversationMessage[] {
  return [
    prompt("write it"),
    {
      type: "assistant",
      uuid: "a-1",
      parentUuid: "prompt-1",
      timestamp: "2026-01-01T00:00:01.000Z",
      message: {
        id: "msg-1",
        role: "assistant",
        model: "test-model",
        content: [
          { type: "tool_use", id: "r1", name: "Read", input: {} },
          { type: "tool_use", id: "w1", name: "Write", input: { value: "data" } },
          { type: "tool_use", id: "b1", name: "Bash", input: {} },
        ],
        stop_reason: "tool_use",
        stop_sequence: null,
        usage: { input_tokens: 1, output_tokens: 1 },
      },
    },
    {
      type: "user",
      uuid: "u-r1",
      parentUuid: "a-1",
      timestamp: "2026-01-01T00:00:02.000Z",
      message: { role: "user", content: [{ type: "tool_result", tool_use_id: "r1", content: "read" }] },
    },
  ];
}

describe("resumeTurn: a turn another node left unfinished", () => {
  it("finds the calls without a result, only while nothing but results follows the response", () => {
    const history = cutOffTurn();
    expect(unansweredToolCalls(history)?.calls.map((call) => call.id)).toEqual(["w1", "b1"]);
    expect(unansweredToolCalls([...history, { ...prompt("something else"), uuid: "p2" }])).toBeUndefined();
    expect(unansweredToolCalls([prompt("hello")])).toBeUndefined();
  });

  it("asks again under the first question's id, runs the call when allowed, and the loop goes on with the results", async () => {
    let wrote = 0;
    let ranBash = 0;
    const write = createTestTool({ name: "Write", safe: false, run: () => ((wrote += 1), "written") });
    const bash = createTestTool({ name: "Bash", safe: false, run: () => ((ranBash += 1), "ran") });
    const asked: PermissionRequest[] = [];
    const prompter: PermissionPrompter = {
      ask: async (request) => {
        asked.push(request);
        return { behavior: "allow", scope: "once" };
      },
    };
    const model = createScriptedModel([{ content: [{ type: "text", text: "done after the takeover" }] }]);
    const appended: ConversationMessage[] = [];
    const sink = {
      sessionId: "session-test",
      appendMessage: async (message: ConversationMessage) => void appended.push(message),
      appendTombstone: async () => undefined,
      appendHookRuns: async () => undefined,
      flush: async () => undefined,
      close: async () => undefined,
    };
    const { messages: _unused, ...params } = baseParams({ deps: testDeps(model), tools: [write, bash], gate: askGate, prompter });
    const { events, terminal } = await collectEvents(
      resumeTurn({ ...params, history: cutOffTurn(), rerun: [{ toolUseId: "w1", requestId: "request-before" }], sink }),
    );

    expect(terminal.reason).toBe("completed");
    expect(wrote).toBe(1);
    // The call that may have been running is not run a second time.
    expect(ranBash).toBe(0);
    expect(asked.map((request) => [request.requestId, request.toolUseId])).toEqual([["request-before", "w1"]]);
    expect(eventsOf(events, "permission-request").map((event) => event.requestId)).toEqual(["request-before"]);
    // The model got every call answered, in one well-formed request.
    const sent = model.requests[0]!.messages;
    const results = sent.slice(2).flatMap((message) => (Array.isArray(message.content) ? (message.content as ToolResultBlock[]) : []));
    expect(results.map((block) => block.tool_use_id).sort()).toEqual(["b1", "r1", "w1"]);
    expect(results.find((block) => block.tool_use_id === "b1")).toMatchObject({ is_error: true, content: INTERRUPTED_TOOL_RESULT });
    expect(results.find((block) => block.tool_use_id === "w1")).toMatchObject({ content: "written" });
    // The results and the answer are in the transcript, chained after what was there.
    expect(appended[0]?.parentUuid).toBe("u-r1");
    expect(appended.at(-1)?.type).toBe("assistant");
    for (let index = 1; index < appended.length; index++) expect(appended[index]?.parentUuid).toBe(appended[index - 1]?.uuid);
  });

  it("a denial answers the call with the rejection and nothing runs", async () => {
    let wrote = 0;
    const write = createTestTool({ name: "Write", safe: false, run: () => ((wrote += 1), "written") });
    const bash = createTestTool({ name: "Bash", safe: false });
    const prompter: PermissionPrompter = { ask: async () => ({ behavior: "deny", feedback: "not now" }) };
    const model = createScriptedModel([{ content: [{ type: "text", text: "understood" }] }]);
    const { messages: _unused, ...params } = baseParams({ deps: testDeps(model), tools: [write, bash], gate: askGate, prompter });
    const { terminal } = await collectEvents(resumeTurn({ ...params, history: cutOffTurn(), rerun: [{ toolUseId: "w1", requestId: "request-before" }] }));
    expect(terminal.reason).toBe("completed");
    expect(wrote).toBe(0);
    const sent = model.requests[0]!.messages.flatMap((message) => (Array.isArray(message.content) ? (message.content as ToolResultBlock[]) : []));
    expect(sent.find((block) => block.tool_use_id === "w1")).toMatchObject({ is_error: true });
    expect(JSON.stringify(sent.find((block) => block.tool_use_id === "w1"))).toContain("not now");
  });

  it("an interrupt while the question waits ends the turn without calling the model", async () => {
    const controller = new AbortController();
    const write = createTestTool({ name: "Write", safe: false });
    const prompter: PermissionPrompter = {
      ask: (_request, signal) =>
        new Promise((_resolve, reject) => {
          signal.addEventListener("abort", () => reject(new Error("interrupted")), { once: true });
          controller.abort();
        }),
    };
    const model = createScriptedModel([{ content: [{ type: "text", text: "never" }] }]);
    const { messages: _unused, ...params } = baseParams({ deps: testDeps(model), tools: [write], gate: askGate, prompter, signal: controller.signal });
    const { terminal } = await collectEvents(resumeTurn({ ...params, history: cutOffTurn(), rerun: [{ toolUseId: "w1", requestId: "request-before" }] }));
    expect(terminal.reason).toBe("aborted_tools");
    expect(model.requests).toHaveLength(0);
  });
});
