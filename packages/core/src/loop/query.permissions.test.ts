import { describe, expect, it } from "vitest";
import type { HookDispatcher } from "../hooks/port.ts";
import { emptyHookOutcome } from "../hooks/port.ts";
import type { PermissionGate, PermissionPrompter, PermissionRequest } from "../permissions/port.ts";
import type { ToolResultBlock } from "../schema/content.ts";
import { toolCallRecordSchema } from "../schema/messages.ts";
import { collectEvents, createScriptedModel, createTestTool, eventsOf, testDeps } from "../testing/index.ts";
import { baseParams } from "./query-test-params.ts";
import { query } from "./query.ts";

const askGate: PermissionGate = {
  async check() {
    return { behavior: "ask", reason: { type: "default", reason: "no rule allows Write" }, suggestions: ["Write(/src/**)"] };
  },
};

function scripted() {
  return createScriptedModel([
    { content: [{ type: "tool_use", id: "w1", name: "Write", input: { value: "data" } }] },
    { content: [{ type: "text", text: "ok" }] },
  ]);
}

function lastResult(model: ReturnType<typeof scripted>): ToolResultBlock {
  return (model.requests[1]!.messages.at(-1)!.content as ToolResultBlock[])[0]!;
}

describe("query: permissions", () => {
  it("asks through the prompter, waits, and runs the call when allowed", async () => {
    let ran = false;
    const write = createTestTool({ name: "Write", safe: false, run: () => ((ran = true), "written") });
    const asked: PermissionRequest[] = [];
    const prompter: PermissionPrompter = {
      ask: async (request) => {
        asked.push(request);
        await new Promise((resolve) => setTimeout(resolve, 30));
        return { behavior: "allow", scope: "once" };
      },
    };
    const model = scripted();
    const { events } = await collectEvents(query(baseParams({ deps: testDeps(model), tools: [write], gate: askGate, prompter })));
    expect(ran).toBe(true);
    expect(asked).toHaveLength(1);
    const request = eventsOf(events, "permission-request")[0]!;
    expect(request).toMatchObject({ toolName: "Write", suggestions: ["Write(/src/**)"] });
    expect(request.requestId).toBe(asked[0]!.requestId);
    const decision = eventsOf(events, "permission-decision")[0]!;
    expect(decision).toMatchObject({ behavior: "allow", reason: { type: "user", scope: "once" } });
    const record = eventsOf(events, "tool-end")[0]!.record;
    expect(record.permissionWaitMs).toBeGreaterThanOrEqual(25);
    expect(record.decision).toMatchObject({ behavior: "allow", asked: true });
  });

  it("denies with the user's feedback, which the model receives, and records the denial", async () => {
    let ran = false;
    const write = createTestTool({ name: "Write", safe: false, run: () => ((ran = true), "written") });
    const prompter: PermissionPrompter = { ask: async () => ({ behavior: "deny", feedback: "use a temp file instead" }) };
    const model = scripted();
    const { events } = await collectEvents(query(baseParams({ deps: testDeps(model), tools: [write], gate: askGate, prompter })));
    expect(ran).toBe(false);
    const result = lastResult(model);
    expect(result.is_error).toBe(true);
    expect(result.content).toContain("use a temp file instead");
    expect(eventsOf(events, "result")[0]!.permissionDenials).toEqual([{ toolName: "Write", toolUseId: "w1", input: { value: "data" } }]);
  });

  it("in print mode an ask becomes a denial the model is told about", async () => {
    const write = createTestTool({ name: "Write", safe: false });
    const model = scripted();
    const { terminal } = await collectEvents(query(baseParams({ deps: testDeps(model), tools: [write], gate: askGate })));
    expect(terminal.reason).toBe("completed");
    expect(lastResult(model)).toMatchObject({ is_error: true });
    expect(lastResult(model).content).toContain("not granted");
  });

  it("a print-mode denial carries the reason headless, and no rule suggestion follows it", async () => {
    const write = createTestTool({ name: "Write", safe: false });
    const denied: string[] = [];
    const gate: PermissionGate = {
      ...askGate,
      async recordDenial(_args, reason) {
        denied.push(reason.type);
        return reason.type === "headless" ? undefined : { rule: "Write(/src/**)", denials: 1 };
      },
    };
    const { events } = await collectEvents(query(baseParams({ deps: testDeps(scripted()), tools: [write], gate })));
    expect(eventsOf(events, "permission-decision")[0]).toMatchObject({ behavior: "deny", reason: { type: "headless" } });
    expect(denied).toEqual(["headless"]);
    expect(eventsOf(events, "permission-suggestion")).toEqual([]);
  });

  it("a blocking PreToolUse hook stops the call and its reason reaches the model", async () => {
    let ran = false;
    const write = createTestTool({ name: "Write", safe: false, run: () => ((ran = true), "written") });
    const hooks: HookDispatcher = {
      async dispatch(event) {
        const outcome = emptyHookOutcome();
        if (event === "PreToolUse") outcome.blocked = { hookName: "guard.sh", reason: "writes are frozen today" };
        return outcome;
      },
    };
    const model = scripted();
    const { events } = await collectEvents(query(baseParams({ deps: testDeps(model), tools: [write], hooks })));
    expect(ran).toBe(false);
    expect(lastResult(model).content).toContain("writes are frozen today");
    expect(eventsOf(events, "permission-decision")[0]!.reason).toEqual({ type: "hook", hookName: "guard.sh", reason: "writes are frozen today" });
  });

  it("an abort while waiting for an answer cancels cleanly", async () => {
    const controller = new AbortController();
    const write = createTestTool({ name: "Write", safe: false });
    const prompter: PermissionPrompter = {
      ask: (_request, signal) =>
        new Promise((_resolve, reject) => {
          setTimeout(() => controller.abort(), 10);
          signal.addEventListener("abort", () => reject(new Error("aborted")), { once: true });
        }),
    };
    const model = scripted();
    const { terminal } = await collectEvents(query(baseParams({ deps: testDeps(model), tools: [write], gate: askGate, prompter, signal: controller.signal })));
    expect(terminal.reason).toBe("aborted_tools");
    expect(model.requests).toHaveLength(1);
  });

  it("keeps auto mode's classifier request on the call's record, also when a person answered the classifier's ask", async () => {
    const request = { model: "claude-haiku-4-5", startedAt: 5, endedAt: 45, usage: { input_tokens: 350, output_tokens: 8 } };
    const classifierAsks: PermissionGate = {
      async check() {
        return { behavior: "ask", reason: { type: "classifier", classifier: "auto-mode", reason: "unusual" }, classifierRequest: request };
      },
    };
    const write = createTestTool({ name: "Write", safe: false, run: () => "written" });
    const prompter: PermissionPrompter = { ask: async () => ({ behavior: "allow", scope: "once" }) };
    const { events } = await collectEvents(query(baseParams({ deps: testDeps(scripted()), tools: [write], gate: classifierAsks, prompter })));
    const record = eventsOf(events, "tool-end")[0]!.record;
    expect(record.decision).toMatchObject({ behavior: "allow", reason: { type: "user" } });
    expect(record.classifierRequest).toEqual(request);
    expect(toolCallRecordSchema.parse(record).classifierRequest).toEqual(request);
  });
});
