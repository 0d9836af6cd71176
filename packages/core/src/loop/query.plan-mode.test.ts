import { describe, expect, it } from "vitest";
import type { ModelRequest } from "../model/port.ts";
import type { PermissionGate, PermissionPrompter } from "../permissions/port.ts";
import type { PermissionAnswer } from "../schema/permissions.ts";
import { createInitialAppState } from "../state/app-state.ts";
import { createStore } from "../state/store.ts";
import { collectEvents, createScriptedModel, testContext, testDeps, type ScriptedTurn } from "../testing/index.ts";
import { createEnterPlanModeTool, enteredPlanModeMessage } from "../tools/builtin/enter-plan-mode.ts";
import { createExitPlanModeTool } from "../tools/builtin/exit-plan-mode.ts";
import { baseParams } from "./query-test-params.ts";
import { query } from "./query.ts";

const askForPlanTools: PermissionGate = {
  async check({ tool }) {
    if (tool.name === "ExitPlanMode" || tool.name === "EnterPlanMode") return { behavior: "ask", reason: { type: "mode", mode: "plan", reason: "approval" } };
    return { behavior: "allow", reason: { type: "mode", mode: "default", reason: "test" } };
  },
};
const answering = (...answers: PermissionAnswer[]): PermissionPrompter => ({ ask: async () => answers.shift() ?? { behavior: "deny" } });
const call = (name: string, input: Record<string, unknown>, id = `toolu_${name}`): ScriptedTurn => ({ content: [{ type: "tool_use", id, name, input }] });
const text = (value: string): ScriptedTurn => ({ content: [{ type: "text", text: value }] });
const sent = (request: ModelRequest) => JSON.stringify(request.messages);
const reminders = (request: ModelRequest) => sent(request).split("Plan mode is active").length - 1;

function setup(mode: "plan" | "default", turns: ScriptedTurn[], prompter: PermissionPrompter) {
  const store = createStore(createInitialAppState({ model: "session-model", permissionMode: mode }));
  const model = createScriptedModel(turns);
  const params = baseParams({
    deps: testDeps(model),
    model: "session-model",
    planModel: "plan-model",
    tools: [createEnterPlanModeTool(), createExitPlanModeTool()],
    context: testContext({ store }),
    gate: askForPlanTools,
    prompter,
  });
  return { store, model, run: () => collectEvents(query(params)) };
}

describe("query: plan mode", () => {
  it("carries the reminder and the plan model until ExitPlanMode is approved, then the session model and mode", async () => {
    const { store, model, run } = setup(
      "plan",
      [call("Glob", { pattern: "*" }, "toolu_unknown_tool"), call("ExitPlanMode", { plan: "1. Add x\n2. Test x" }), text("Implementing now.")],
      answering({ behavior: "allow", scope: "once", mode: "acceptEdits" }),
    );
    const { terminal } = await run();
    expect(terminal.reason).toBe("completed");
    expect(model.requests.map((request) => request.model)).toEqual(["plan-model", "plan-model", "session-model"]);
    expect(model.requests.map(reminders)).toEqual([1, 2, 2]);
    expect(store.getState().permissionMode).toBe("acceptEdits");
    expect(sent(model.requests[2]!)).toContain("User has approved your plan");
  });

  it("approving without a mode continues in default mode", async () => {
    const { store, model, run } = setup("plan", [call("ExitPlanMode", { plan: "the plan" }), text("ok")], answering({ behavior: "allow", scope: "once" }));
    await run();
    expect(store.getState().permissionMode).toBe("default");
    expect(model.requests[1]!.model).toBe("session-model");
  });

  it("keep planning: the user's comments reach the model, which stays in plan mode with the plan model", async () => {
    const { store, model, run } = setup(
      "plan",
      [call("ExitPlanMode", { plan: "v1" }), call("ExitPlanMode", { plan: "v2" }, "toolu_second"), text("ok")],
      answering({ behavior: "deny", feedback: "Also cover the error path." }, { behavior: "allow", scope: "once" }),
    );
    await run();
    const second = sent(model.requests[1]!);
    expect(second).toContain("keep planning");
    expect(second).toContain("Also cover the error path.");
    expect(model.requests[1]!.model).toBe("plan-model");
    expect(reminders(model.requests[1]!)).toBe(2);
    expect(store.getState().permissionMode).toBe("default");
  });

  it("EnterPlanMode, once approved, switches to plan mode: the next request has the reminder and the plan model", async () => {
    const { store, model, run } = setup("default", [call("EnterPlanMode", {}), text("Planning.")], answering({ behavior: "allow", scope: "once" }));
    await run();
    expect(model.requests[0]!.model).toBe("session-model");
    expect(reminders(model.requests[0]!)).toBe(0);
    expect(model.requests[1]!.model).toBe("plan-model");
    expect(reminders(model.requests[1]!)).toBe(1);
    expect(sent(model.requests[1]!)).toContain(JSON.stringify(enteredPlanModeMessage).slice(1, 30));
    expect(store.getState().permissionMode).toBe("plan");
  });

  it("EnterPlanMode declined: the model is told to go on in the current mode", async () => {
    const { store, model, run } = setup("default", [call("EnterPlanMode", {}), text("ok")], answering({ behavior: "deny" }));
    await run();
    expect(store.getState().permissionMode).toBe("default");
    expect(sent(model.requests[1]!)).toContain("declined to enter plan mode");
  });
});
