import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startModelSim, type ModelSim } from "@cairn/model-sim";
import { runCairn } from "../support/cli.ts";
import { useTempDirs } from "../support/use-temp-dirs.ts";

const tempDir = useTempDirs();

let sim: ModelSim;
let workspace: string;
let env: Record<string, string>;

beforeAll(async () => {
  sim = await startModelSim();
  workspace = await tempDir("blocking-ws");
  // A 10,000-token window: the blocking limit is 7,000 tokens.
  env = {
    ANTHROPIC_BASE_URL: sim.url,
    ANTHROPIC_API_KEY: "test",
    CAIRN_HOME: await tempDir("blocking-home"),
    CAIRN_CONTEXT_WINDOW: "10000",
    CAIRN_DISABLE_AUTOCOMPACT: "1",
  };
});
afterAll(async () => {
  await sim.close();
});

describe("cairn -p at the blocking limit", () => {
  it("with auto-compaction off, sends no doomed request and says to run /compact or start a new session", async () => {
    sim.setScenario({ turns: [{ content: [{ type: "text", text: "Here is a long answer." }], usage: { input_tokens: 7_200, output_tokens: 100 } }] });
    const first = await runCairn(["-p", "Tell me everything", "--output-format", "json"], { cwd: workspace, env });
    expect(first.code).toBe(0);
    const requestsBefore = sim.requests.length;

    const second = await runCairn(["-p", "And more", "--continue", "--output-format", "json"], { cwd: workspace, env });
    expect(second.code).toBe(1);
    expect(sim.requests.length).toBe(requestsBefore);
    const result = second.lines.at(-1)!;
    expect(result).toMatchObject({ type: "result", is_error: true, stop_reason: "blocking_limit", error: { code: "blocking_limit" } });
    expect(result.error.message).toMatch(/auto-compaction is off\. Run \/compact to summarise it, or start a new session\./);
  });
});
