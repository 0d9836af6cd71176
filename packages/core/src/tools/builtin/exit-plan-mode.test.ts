import { describe, expect, it } from "vitest";
import { createHarness } from "../../permissions/test-fixtures.ts";
import { createMemoryWorkspace } from "../../testing/memory-workspace.ts";
import { createExitPlanModeTool, exitPlanModeApproved } from "./exit-plan-mode.ts";
import { builtinTools } from "./index.ts";
import { expectResult, runTool, toolContext } from "./tool-test-support.ts";

const exitPlanMode = createExitPlanModeTool();

describe("ExitPlanMode", () => {
  it("is one of the built-in tools", () => {
    expect(builtinTools().map((tool) => tool.name)).toContain("ExitPlanMode");
  });

  it("in plan mode, switches the session to default mode and tells the model to start", async () => {
    const context = toolContext(createMemoryWorkspace());
    context.setAppState((state) => ({ ...state, permissionMode: "plan" }));
    const run = expectResult(await runTool(exitPlanMode, { plan: "1. Fix the bug\n2. Add a test" }, context));
    expect(run.content).toBe(exitPlanModeApproved);
    expect(run.result.output).toEqual({ plan: "1. Fix the bug\n2. Add a test", approved: true });
    expect(context.getAppState().permissionMode).toBe("default");
  });

  it("outside plan mode, is refused with a message and changes nothing", async () => {
    const context = toolContext(createMemoryWorkspace());
    context.setAppState((state) => ({ ...state, permissionMode: "acceptEdits" }));
    const run = await runTool(exitPlanMode, { plan: "x" }, context);
    expect(run).toMatchObject({ stage: "validation", code: "not_in_plan_mode" });
    expect(context.getAppState().permissionMode).toBe("acceptEdits");
  });

  it("refuses an empty plan and unknown fields", async () => {
    const context = toolContext(createMemoryWorkspace());
    context.setAppState((state) => ({ ...state, permissionMode: "plan" }));
    expect((await runTool(exitPlanMode, { plan: "" }, context)).stage).toBe("input");
    expect((await runTool(exitPlanMode, { plan: "x", mode: "bypassPermissions" }, context)).stage).toBe("input");
  });

  it("always asks the user in plan mode, even where every tool is allowed by a rule", async () => {
    const harness = createHarness({ mode: "plan", layers: [{ source: "userSettings", settings: { permissions: { allow: ["ExitPlanMode"] } } }] });
    expect(await harness.engine.check(harness.args(exitPlanMode, { plan: "do it" }))).toMatchObject({
      behavior: "ask",
      reason: { type: "mode", mode: "plan" },
    });
  });

  it("is pre-approved only by an allow rule from this run's command line (headless runs)", async () => {
    const harness = createHarness({ mode: "plan", cli: { allowedTools: ["ExitPlanMode"] } });
    expect(await harness.engine.check(harness.args(exitPlanMode, { plan: "do it" }))).toMatchObject({
      behavior: "allow",
      reason: { type: "rule", source: "cliArg" },
    });
  });

  it("tells the model to keep planning, with the user's comments, when the plan is not approved", () => {
    expect(exitPlanMode.rejectionMessage?.("Cover the error path.")).toMatch(/keep planning[\s\S]*Cover the error path\.[\s\S]*ExitPlanMode again/);
  });
});
