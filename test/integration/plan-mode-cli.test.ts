import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startModelSim, type ModelSim } from "@cairn/model-sim";
import { runCairn } from "../support/cli.ts";
import { useTempDirs } from "../support/use-temp-dirs.ts";

const tempDir = useTempDirs();

let sim: ModelSim;
let workspace: string;
let env: Record<string, string>;

type Line = Record<string, any>;
const sent = (request: { body: unknown }) => JSON.stringify((request.body as Line).messages);
const reminders = (request: { body: unknown }) => sent(request).split("Plan mode is active").length - 1;

beforeAll(async () => {
  sim = await startModelSim();
  workspace = await tempDir("plan-ws");
  await writeFile(join(workspace, "math.ts"), "export const add = (a: number, b: number) => a + b;\n");
  env = { ANTHROPIC_BASE_URL: sim.url, ANTHROPIC_API_KEY: "test", CAIRN_HOME: await tempDir("plan-home") };
});
afterAll(async () => {
  await sim.close();
});

describe("cairn -p in plan mode", () => {
  it("tells the model it is planning on every request, plans with --plan-model, and returns to the session model after ExitPlanMode", async () => {
    sim.setScenario({
      turns: [
        { content: [{ type: "tool_use", id: "toolu_read", name: "Read", input: { file_path: join(workspace, "math.ts") } }] },
        { content: [{ type: "tool_use", id: "toolu_plan", name: "ExitPlanMode", input: { plan: "1. Add subtract\n2. Test it" } }] },
        { content: [{ type: "text", text: "Plan approved; starting." }] },
      ],
    });
    const before = sim.requests.length;
    const run = await runCairn(
      ["-p", "Add a subtract function", "--permission-mode", "plan", "--plan-model", "opus", "--allowedTools", "ExitPlanMode", "--output-format", "json"],
      { cwd: workspace, env },
    );
    expect(run.stderr).toBe("");
    expect(run.code).toBe(0);
    const requests = sim.requests.slice(before);
    expect(requests.map((request) => (request.body as Line).model)).toEqual(["claude-opus-5-5", "claude-opus-5-5", "claude-sonnet-5-5"]);
    // One reminder per request made in plan mode; none added once the plan was approved.
    expect(requests.map(reminders)).toEqual([1, 2, 2]);
    expect(sent(requests[0]!)).toContain("call ExitPlanMode with the plan");
    expect(sent(requests[2]!)).toContain("User has approved your plan");
    expect(run.lines.at(-1)).toMatchObject({ subtype: "success", result: "Plan approved; starting." });
  });

  it("takes the plan model from the planModel setting, and without approval keeps planning", async () => {
    sim.setScenario({
      turns: [
        { content: [{ type: "tool_use", id: "toolu_plan", name: "ExitPlanMode", input: { plan: "the plan" } }] },
        { content: [{ type: "text", text: "I will wait for approval." }] },
      ],
    });
    const before = sim.requests.length;
    const run = await runCairn(["-p", "Plan it", "--permission-mode", "plan", "--settings", JSON.stringify({ planModel: "haiku" })], { cwd: workspace, env });
    expect(run.code).toBe(0);
    const requests = sim.requests.slice(before);
    // Headless, nobody can approve: the model hears it and stays in plan mode with the plan model.
    expect(requests.map((request) => (request.body as Line).model)).toEqual(["claude-haiku-5-5", "claude-haiku-5-5"]);
    expect(requests.map(reminders)).toEqual([1, 2]);
  });
});
