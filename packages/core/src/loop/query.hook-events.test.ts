import { describe, expect, it } from "vitest";
import { emptyHookOutcome, type HookDispatcher, type HookEventName, type HookOutcome } from "../hooks/port.ts";
import type { PermissionGate, PermissionPrompter } from "../permissions/port.ts";
import type { ToolResultBlock } from "../schema/content.ts";
import type { ConversationMessage } from "../schema/messages.ts";
import type { HookRunRecord } from "../schema/messages.ts";
import { collectEvents, createScriptedModel, createTestTool, eventsOf, testDeps } from "../testing/index.ts";
import { baseParams } from "./query-test-params.ts";
import { query } from "./query.ts";
import { runPrompt, type RunPromptResult } from "./run-prompt.ts";
import type { AgentEvent } from "../schema/events.ts";

async function collectRun(run: AsyncGenerator<AgentEvent, RunPromptResult>): Promise<{ events: AgentEvent[]; result: RunPromptResult }> {
  const events: AgentEvent[] = [];
  while (true) {
    const step = await run.next();
    if (step.done) return { events, result: step.value };
    events.push(step.value);
  }
}

const askGate: PermissionGate = {
  async check() {
    return { behavior: "ask", reason: { type: "default", reason: "no rule allows Write" }, suggestions: ["Write(/src/**)"] };
  },
};
const neverAsked: PermissionPrompter = {
  ask: async () => {
    throw new Error("the PermissionRequest hook should have answered");
  },
};

/** A dispatcher that answers each event with `answers[event]` and records what it was sent. */
function scriptedHooks(answers: Partial<Record<HookEventName, Partial<HookOutcome>>>) {
  const calls: Array<{ event: HookEventName; input: Record<string, unknown>; matchValue: string | undefined }> = [];
  const hooks: HookDispatcher = {
    async dispatch(event, input, options) {
      calls.push({ event, input, matchValue: options.matchValue });
      const answer = answers[event];
      if (!answer) return emptyHookOutcome();
      return { ...emptyHookOutcome(), ran: [{ hookName: `${event}.sh`, durationMs: 1, exitCode: 0 }], ...answer };
    },
  };
  return { hooks, calls };
}

const writeTurns = () =>
  createScriptedModel([{ content: [{ type: "tool_use", id: "w1", name: "Write", input: { value: "data" } }] }, { content: [{ type: "text", text: "ok" }] }]);
const lastResult = (model: ReturnType<typeof writeTurns>): ToolResultBlock => (model.requests[1]!.messages.at(-1)!.content as ToolResultBlock[])[0]!;

describe("query: PermissionRequest hooks answer the prompt", () => {
  it("allow with updatedInput: the call runs with the new input and nobody is asked", async () => {
    const inputs: unknown[] = [];
    const write = createTestTool({ name: "Write", safe: false, run: (input) => (inputs.push(input), "written") });
    const { hooks, calls } = scriptedHooks({
      PermissionRequest: { permissionRequest: { behavior: "allow", updatedInput: { value: "safer" }, hookName: "pr.sh" } },
    });
    const model = writeTurns();
    const { events } = await collectEvents(query(baseParams({ deps: testDeps(model), tools: [write], gate: askGate, prompter: neverAsked, hooks })));
    expect(inputs).toEqual([{ value: "safer" }]);
    expect(calls.find((call) => call.event === "PermissionRequest")).toMatchObject({
      matchValue: "Write",
      input: {
        tool_name: "Write",
        tool_input: { value: "data" },
        permission_suggestions: [{ type: "addRules", rules: ["Write(/src/**)"], behavior: "allow" }],
      },
    });
    expect(eventsOf(events, "permission-request")).toEqual([]);
    expect(eventsOf(events, "permission-decision")[0]).toMatchObject({ behavior: "allow", reason: { type: "hook", hookName: "pr.sh" } });
  });

  it("deny: the model gets the hook's message; interrupt stops the run", async () => {
    const write = createTestTool({ name: "Write", safe: false, run: () => "written" });
    const { hooks } = scriptedHooks({ PermissionRequest: { permissionRequest: { behavior: "deny", message: "no writes on Fridays", hookName: "pr.sh" } } });
    const model = writeTurns();
    await collectEvents(query(baseParams({ deps: testDeps(model), tools: [write], gate: askGate, prompter: neverAsked, hooks })));
    expect(lastResult(model)).toMatchObject({ is_error: true, content: "PermissionRequest hook denied this call: no writes on Fridays" });

    const interrupted = scriptedHooks({
      PermissionRequest: { permissionRequest: { behavior: "deny", message: "stop everything", interrupt: true, hookName: "pr.sh" } },
    });
    const stopModel = writeTurns();
    const { terminal } = await collectEvents(
      query(baseParams({ deps: testDeps(stopModel), tools: [write], gate: askGate, prompter: neverAsked, hooks: interrupted.hooks })),
    );
    expect(terminal.reason).toBe("hook_stopped");
    expect(stopModel.requests).toHaveLength(1);
  });
});

describe("query: continue false from tool hooks", () => {
  it.each<HookEventName>(["PreToolUse", "PostToolUse"])("%s continue:false ends the run after the call's result", async (event) => {
    let ran = false;
    const write = createTestTool({ name: "Write", safe: false, run: () => ((ran = true), "written") });
    const { hooks } = scriptedHooks({ [event]: { preventContinuation: { hookName: `${event}.sh`, stopReason: "quota reached" } } });
    const model = writeTurns();
    const { events, terminal } = await collectEvents(query(baseParams({ deps: testDeps(model), tools: [write], hooks })));
    expect(terminal.reason).toBe("hook_stopped");
    expect(model.requests).toHaveLength(1);
    expect(ran).toBe(event === "PostToolUse");
    expect(eventsOf(events, "tool-end")).toHaveLength(1);
    expect(eventsOf(events, "notice").map((notice) => notice.message)).toContain(`A hook stopped the run (${event}.sh): quota reached`);
  });
});

describe("runPrompt: SessionStart, UserPromptSubmit and Stop on the record", () => {
  it("SessionStart context precedes the prompt; every session event's runs go to the sink", async () => {
    const { hooks, calls } = scriptedHooks({
      SessionStart: { additionalContext: ["Branch: main"], systemMessages: ["welcome back"] },
      UserPromptSubmit: { additionalContext: ["Ticket: CAIRN-7"] },
      Stop: {},
    });
    const model = createScriptedModel([{ content: [{ type: "text", text: "done" }] }]);
    const written: ConversationMessage[] = [];
    const runs: Array<{ event: string; runs: readonly HookRunRecord[] }> = [];
    const sink = {
      sessionId: "s",
      appendMessage: async (message: ConversationMessage) => void written.push(message),
      appendTombstone: async () => undefined,
      appendHookRuns: async (event: string, records: readonly HookRunRecord[]) => void runs.push({ event, runs: records }),
      flush: async () => undefined,
      close: async () => undefined,
    };
    const params = baseParams({ deps: testDeps(model), hooks });
    const { events } = await collectRun(runPrompt({ ...params, history: [], prompt: "fix the bug", sink, sessionStart: "resume" }));
    expect(calls.map((call) => call.event)).toEqual(["SessionStart", "UserPromptSubmit", "Stop"]);
    expect(calls[0]).toMatchObject({ input: { source: "resume", model: "test-model" }, matchValue: "resume" });
    const sent = model.requests[0]!.messages.map((message) => message.content);
    expect(JSON.stringify(sent)).toMatch(/Branch: main[\s\S]*fix the bug[\s\S]*Ticket: CAIRN-7/);
    expect(written.map((message) => message.type === "user" && message.isMeta === true)).toEqual([true, false, true, false]);
    expect(runs.map((entry) => entry.event)).toEqual(["SessionStart", "UserPromptSubmit", "Stop"]);
    expect(runs[0]!.runs[0]).toMatchObject({ event: "SessionStart", name: "SessionStart.sh", outcome: "ok" });
    expect(events.flatMap((event) => (event.type === "notice" ? [event.message] : []))).toContain("welcome back");
  });

  it("SessionStart continue:false stops before the prompt is sent", async () => {
    const { hooks } = scriptedHooks({ SessionStart: { preventContinuation: { hookName: "s.sh", stopReason: "maintenance window" } } });
    const model = createScriptedModel([{ content: [{ type: "text", text: "done" }] }]);
    const params = baseParams({ deps: testDeps(model), hooks });
    const { result } = await collectRun(runPrompt({ ...params, history: [], prompt: "hi", sessionStart: "startup" }));
    expect(result.terminal.reason).toBe("hook_stopped");
    expect(model.requests).toHaveLength(0);
  });
});
