import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startModelSim, type ModelSim } from "@cairn/model-sim";
import { runCairn } from "../support/cli.ts";
import { useTempDirs } from "../support/use-temp-dirs.ts";
import type { Body } from "./pipeline-support.ts";

const tempDir = useTempDirs();

let sim: ModelSim;
let workspace: string;
let env: Record<string, string>;

beforeAll(async () => {
  sim = await startModelSim();
  workspace = await tempDir("token-budget-ws");
  env = { ANTHROPIC_BASE_URL: sim.url, ANTHROPIC_API_KEY: "test", CAIRN_HOME: await tempDir("token-budget-home") };
});
afterAll(async () => {
  await sim.close();
});

const part = (text: string, outputTokens: number) => ({ content: [{ type: "text" as const, text }], usage: { input_tokens: 50, output_tokens: outputTokens } });
const lastUserText = (body: Body) => JSON.stringify((body.messages as Body[]).at(-1)!.content);

describe("cairn -p: token-budget continuation", () => {
  it("a prompt naming a budget (+10k) keeps the run going past end_turn with a nudge until the budget is spent", async () => {
    const start = sim.requests.length;
    sim.setScenario({ turns: [part("Part one.", 4_000), part("Part two.", 4_000), part("Part three.", 2_000), part("never sent", 10)] });
    const run = await runCairn(["-p", "Write the full report +10k", "--output-format", "json"], { cwd: workspace, env });
    expect(run.code).toBe(0);
    const bodies = sim.requests.slice(start).map((request) => request.body as Body);
    expect(bodies).toHaveLength(3);
    expect(lastUserText(bodies[0]!)).toContain("Write the full report +10k");
    expect(lastUserText(bodies[1]!)).toContain("Stopped at 40% of token target (4,000 / 10,000). Keep working");
    expect(lastUserText(bodies[2]!)).toContain("Stopped at 80% of token target (8,000 / 10,000). Keep working");
    expect(run.lines.at(-1)).toMatchObject({
      type: "result",
      result: "Part three.",
      num_turns: 3,
      token_budget: { budget: 10_000, used: 10_000, continuations: 2, stopped_by: "spent" },
    });
  });

  it("takes the session's tokenBudget setting when the prompt names none; without either the run ends at end_turn", async () => {
    let start = sim.requests.length;
    sim.setScenario({ turns: [part("One.", 3_000), part("Two.", 3_000)] });
    const settings = JSON.stringify({ tokenBudget: 6_000 });
    const run = await runCairn(["-p", "Write it", "--settings", settings, "--output-format", "json"], { cwd: workspace, env });
    expect(run.code).toBe(0);
    expect(sim.requests.length - start).toBe(2);
    expect(lastUserText(sim.requests.at(-1)!.body as Body)).toContain("Stopped at 50% of token target (3,000 / 6,000)");
    expect(run.lines.at(-1)!.token_budget).toMatchObject({ budget: 6_000, used: 6_000, continuations: 1 });

    start = sim.requests.length;
    sim.setScenario({ turns: [part("Only.", 3_000)] });
    const plain = await runCairn(["-p", "Write it", "--output-format", "json"], { cwd: workspace, env });
    expect(sim.requests.length - start).toBe(1);
    expect(plain.lines.at(-1)!.token_budget).toBeUndefined();
  });
});
