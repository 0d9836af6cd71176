import { readFile, realpath, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startModelSim, type ModelSim } from "@cairn/model-sim";
import { runCairn } from "../support/cli.ts";
import { useTempDirs } from "../support/use-temp-dirs.ts";
import { text, toolResultsOf, type Body } from "./pipeline-support.ts";

const tempDir = useTempDirs();

let sim: ModelSim;
let workspace: string;
let cairnHome: string;
let env: Record<string, string>;

beforeAll(async () => {
  sim = await startModelSim();
  workspace = await realpath(await tempDir("result-budget-ws"));
  cairnHome = await tempDir("result-budget-home");
  // Four files read in one response: about 256,000 characters of results together, f1 the largest.
  for (let file = 1; file <= 4; file++)
    await writeFile(join(workspace, `f${file}.txt`), `${`line of file ${file} `.padEnd(99, "x")}\n`.repeat(file === 1 ? 700 : 600));
  env = { ANTHROPIC_BASE_URL: sim.url, ANTHROPIC_API_KEY: "test", CAIRN_HOME: cairnHome };
});
afterAll(async () => {
  await sim.close();
});

describe("cairn -p: per-message tool-result budget", () => {
  it("saves the largest result of an over-budget turn under the session's directory, sends a preview and the path, and Read reads it back", async () => {
    const sessionId = "7c0f5a52-7a53-4f1e-9d55-2b8f0c7d4a10";
    const saved = join(cairnHome, "projects", workspace.replace(/[^a-zA-Z0-9]/g, "-"), sessionId, "tool-results", "toolu_1.txt");
    const readAll = {
      content: [1, 2, 3, 4].map((file) => ({
        type: "tool_use" as const,
        id: `toolu_${file}`,
        name: "Read",
        input: { file_path: join(workspace, `f${file}.txt`) },
      })),
    };
    const readBack = { content: [{ type: "tool_use" as const, id: "toolu_back", name: "Read", input: { file_path: saved, offset: 650, limit: 2 } }] };
    const start = sim.requests.length;
    sim.setScenario({ turns: [readAll, readBack, text("Done.")] });
    const run = await runCairn(["-p", "Read the four files", "--session-id", sessionId, "--output-format", "json"], { cwd: workspace, env });
    expect(run.code).toBe(0);
    const bodies = sim.requests.slice(start).map((request) => request.body as Body);
    expect(bodies).toHaveLength(3);
    const results = toolResultsOf(bodies[1]!);
    expect(results.get("toolu_1")).toMatch(
      new RegExp(`^<persisted-output>\\nOutput too large \\([\\d,]+ characters\\)\\. Full output saved to: ${saved.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}`),
    );
    expect(results.get("toolu_2")).toContain("line of file 2");
    expect(results.get("toolu_2")!.startsWith("<persisted-output>")).toBe(false);
    expect(await readFile(saved, "utf8")).toContain("line of file 1");
    const back = toolResultsOf(bodies[2]!).get("toolu_back")!;
    expect(back).toContain("line of file 1");
    expect(back).not.toMatch(/outside the workspace|denied/i);
  });
});
