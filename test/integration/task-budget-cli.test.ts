import { readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startModelSim, type ModelSim } from "@cairn/model-sim";
import { runCairn } from "../support/cli.ts";
import { useTempDirs } from "../support/use-temp-dirs.ts";
import { read, text, transcriptFile, type Body } from "./pipeline-support.ts";

const tempDir = useTempDirs();

let sim: ModelSim;
let workspace: string;
let cairnHome: string;
let env: Record<string, string>;
const BETA = "task-budgets-2026-03-13";

beforeAll(async () => {
  sim = await startModelSim();
  workspace = await tempDir("task-budget-ws");
  cairnHome = await tempDir("task-budget-home");
  for (let file = 1; file <= 4; file++) await writeFile(join(workspace, `f${file}.ts`), `export const value${file} = "${"v".repeat(300)}";\n`.repeat(4));
  env = { ANTHROPIC_BASE_URL: sim.url, ANTHROPIC_API_KEY: "test", CAIRN_HOME: cairnHome };
});
afterAll(async () => {
  await sim.close();
});

const mainRequests = (from: number) => sim.requests.slice(from).filter((request) => (request.body as Body).tools !== undefined);

describe("cairn -p --task-budget", () => {
  it("sends task_budget with the beta header, and after a compaction the remaining budget less the context compacted away", async () => {
    // A 10,000-token window: auto-compaction at 6,500 tokens.
    const small = { ...env, CAIRN_CONTEXT_WINDOW: "10000" };
    const start = sim.requests.length;
    sim.setScenario({
      turns: [
        ...[1, 2, 3, 4].map((file) => ({ ...read(`toolu_${file}`, join(workspace, `f${file}.ts`)), usage: { input_tokens: 1_000 * file, output_tokens: 20 } })),
        { ...text("All four read."), usage: { input_tokens: 7_000, output_tokens: 20 } },
      ],
    });
    const first = await runCairn(["-p", "Read f1 to f4", "--model", "claude-opus-4-7", "--task-budget", "400000", "--output-format", "json"], {
      cwd: workspace,
      env: small,
    });
    expect(first.code).toBe(0);
    const sessionId = first.lines.at(-1)!.session_id as string;
    const before = mainRequests(start);
    expect(before).toHaveLength(5);
    for (const request of before) {
      expect((request.body as Body).output_config).toEqual({ task_budget: { type: "tokens", total: 400_000 } });
      expect(request.headers["anthropic-beta"]).toContain(BETA);
    }

    // The next prompt starts past the threshold: a summary call, then the request with what is left.
    const next = sim.requests.length;
    sim.setScenario({ turns: [text("<summary>1. Primary request: read f1 to f4.</summary>"), text("Continuing.")] });
    const second = await runCairn(["-p", "Go on", "--resume", sessionId, "--model", "claude-opus-4-7", "--task-budget", "400000"], {
      cwd: workspace,
      env: small,
    });
    expect(second.code).toBe(0);
    const lines = (await readFile(await transcriptFile(cairnHome, sessionId), "utf8")).split("\n").filter(Boolean);
    const boundary = lines.map((line) => JSON.parse(line) as Body).find((line) => line.subtype === "compact_boundary");
    const preTokens = boundary!.compactMetadata.preTokens as number;
    expect(preTokens).toBeGreaterThan(7_000);
    const after = mainRequests(next);
    expect(after).toHaveLength(1);
    expect((after[0]!.body as Body).output_config).toEqual({ task_budget: { type: "tokens", total: 400_000, remaining: 400_000 - preTokens } });
    // The boundary keeps the running total of what was compacted away, for later resumes.
    expect(boundary!.compactMetadata.compactedTokens).toBe(preTokens);

    // Resumed again, in a new process with nothing compacted in it: the budget goes on from what was left.
    const third = sim.requests.length;
    sim.setScenario({ turns: [text("Still going.")] });
    const resumed = await runCairn(["-p", "And now?", "--resume", sessionId, "--model", "claude-opus-4-7", "--task-budget", "400000"], {
      cwd: workspace,
      env: small,
    });
    expect(resumed.code).toBe(0);
    const later = mainRequests(third);
    expect(later).toHaveLength(1);
    expect((later[0]!.body as Body).output_config).toEqual({ task_budget: { type: "tokens", total: 400_000, remaining: 400_000 - preTokens } });
  });

  it("takes the taskBudget setting, and leaves it out for a model that does not accept it", async () => {
    const settings = JSON.stringify({ taskBudget: 250_000 });
    let start = sim.requests.length;
    sim.setScenario({ turns: [text("ok")] });
    expect((await runCairn(["-p", "hi", "--model", "claude-opus-4-8", "--settings", settings], { cwd: workspace, env })).code).toBe(0);
    expect((mainRequests(start)[0]!.body as Body).output_config).toEqual({ task_budget: { type: "tokens", total: 250_000 } });

    start = sim.requests.length;
    sim.setScenario({ turns: [text("ok")] });
    const run = await runCairn(["-p", "hi", "--model", "claude-sonnet-4-5", "--settings", settings, "--verbose"], { cwd: workspace, env });
    expect(run.code).toBe(0);
    const [request] = mainRequests(start);
    expect((request!.body as Body).output_config).toBeUndefined();
    expect(request!.headers["anthropic-beta"] ?? "").not.toContain(BETA);
    expect(run.stderr).toContain("task_budget_unsupported");
  });
});
