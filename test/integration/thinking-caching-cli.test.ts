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

type Body = Record<string, any>;
const bodyOf = (request: { body: unknown }) => request.body as Body;
const carriesBreakpoints = (request: { body: unknown }) => JSON.stringify(bodyOf(request)).includes('"cache_control"');
const done = { content: [{ type: "text" as const, text: "Done." }] };

/** Runs one prompt and returns the requests the simulator received for it. */
async function requestsOf(args: string[], extraEnv: Record<string, string> = {}) {
  const before = sim.requests.length;
  const run = await runCairn(["-p", "Go", "--output-format", "json", ...args], { cwd: workspace, env: { ...env, ...extraEnv } });
  expect(run.stderr).toBe("");
  expect(run.code).toBe(0);
  return sim.requests.slice(before);
}

beforeAll(async () => {
  sim = await startModelSim();
  workspace = await tempDir("thinking-ws");
  await writeFile(join(workspace, "notes.txt"), "remember the milk\n");
  env = { ANTHROPIC_BASE_URL: sim.url, ANTHROPIC_API_KEY: "test", CAIRN_HOME: await tempDir("thinking-home"), HOME: await tempDir("thinking-user") };
});
afterAll(async () => {
  await sim.close();
});

describe("cairn -p: extended thinking", () => {
  it("asks a Claude 5 model for adaptive thinking and sends its signed and redacted thinking back unchanged with the tool result", async () => {
    sim.setScenario({
      turns: [
        {
          content: [
            { type: "thinking", thinking: "The user wants the notes; I will read the file.", signature: "sig_turn_one" },
            { type: "redacted_thinking", data: "EncryptedBlob==" },
            { type: "tool_use", id: "toolu_read", name: "Read", input: { file_path: join(workspace, "notes.txt") } },
          ],
        },
        done,
      ],
    });
    const requests = await requestsOf([]);
    expect(requests.map((request) => bodyOf(request).thinking)).toEqual([{ type: "adaptive" }, { type: "adaptive" }]);
    const second = bodyOf(requests[1]!).messages as Body[];
    expect(second[1]!.role).toBe("assistant");
    expect(second[1]!.content).toEqual([
      { type: "thinking", thinking: "The user wants the notes; I will read the file.", signature: "sig_turn_one" },
      { type: "redacted_thinking", data: "EncryptedBlob==" },
      { type: "tool_use", id: "toolu_read", name: "Read", input: { file_path: join(workspace, "notes.txt") } },
    ]);
    expect(second[2]!.content[0]).toMatchObject({ type: "tool_result", tool_use_id: "toolu_read" });
  });

  it("CAIRN_MAX_THINKING_TOKENS sets a budget above max_tokens' floor, and 0 turns thinking off", async () => {
    sim.setScenario({ turns: [done, done] });
    const [budget] = await requestsOf(["--model", "claude-sonnet-4-5"], { CAIRN_MAX_THINKING_TOKENS: "5000" });
    expect(bodyOf(budget!).thinking).toEqual({ type: "enabled", budget_tokens: 5000 });
    expect(bodyOf(budget!).max_tokens).toBeGreaterThan(5000);
    const [off] = await requestsOf(["--model", "claude-sonnet-4-5"], { CAIRN_MAX_THINKING_TOKENS: "0" });
    expect(bodyOf(off!).thinking).toEqual({ type: "disabled" });
  });

  it("without the variable: a default budget for a budget-only model, and the thinking setting's budget where given", async () => {
    sim.setScenario({ turns: [done, done] });
    const [auto] = await requestsOf(["--model", "claude-sonnet-4-5"]);
    expect(bodyOf(auto!).thinking).toEqual({ type: "enabled", budget_tokens: 10_000 });
    const [setting] = await requestsOf(["--model", "claude-sonnet-4-6", "--settings", JSON.stringify({ thinking: { budgetTokens: 2048 } })]);
    expect(bodyOf(setting!).thinking).toEqual({ type: "enabled", budget_tokens: 2048 });
  });

  it("refuses a CAIRN_MAX_THINKING_TOKENS the API would reject, before calling the model", async () => {
    const before = sim.requests.length;
    const run = await runCairn(["-p", "Go"], { cwd: workspace, env: { ...env, CAIRN_MAX_THINKING_TOKENS: "500" } });
    expect(run.code).not.toBe(0);
    expect(run.stderr).toContain("CAIRN_MAX_THINKING_TOKENS");
    expect(sim.requests.length).toBe(before);
  });
});

describe("cairn -p: prompt caching per model", () => {
  it("sends cache_control to a Claude 5 model and none to Claude 2", async () => {
    sim.setScenario({ turns: [done, done] });
    const [claude5] = await requestsOf(["--model", "claude-sonnet-5-5"]);
    expect(carriesBreakpoints(claude5!)).toBe(true);
    expect(bodyOf(claude5!).system[0].cache_control).toEqual({ type: "ephemeral" });
    const [claude2] = await requestsOf(["--model", "claude-2.1"]);
    expect(carriesBreakpoints(claude2!)).toBe(false);
  });

  it("sends none to a model it does not know unless promptCaching is always", async () => {
    sim.setScenario({ turns: [done, done] });
    const [unknown] = await requestsOf(["--model", "proxy-model"]);
    expect(carriesBreakpoints(unknown!)).toBe(false);
    expect(bodyOf(unknown!).thinking).toBeUndefined();
    const [forced] = await requestsOf(["--model", "proxy-model", "--settings", JSON.stringify({ promptCaching: "always" })]);
    expect(carriesBreakpoints(forced!)).toBe(true);
  });

  it("CAIRN_DISABLE_PROMPT_CACHING=1 turns breakpoints off for every model", async () => {
    sim.setScenario({ turns: [done] });
    const [switchedOff] = await requestsOf(["--model", "claude-sonnet-5-5"], { CAIRN_DISABLE_PROMPT_CACHING: "1" });
    expect(carriesBreakpoints(switchedOff!)).toBe(false);
  });
});
