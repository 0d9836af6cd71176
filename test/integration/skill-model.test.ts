import { mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startModelSim, type ModelSim } from "@cairn/model-sim";
import { runCairn } from "../support/cli.ts";
import { useTempDirs } from "../support/use-temp-dirs.ts";
import { eventually, startApiFixture } from "./api-harness.ts";

const tempDir = useTempDirs();

const text = (value: string) => ({ content: [{ type: "text" as const, text: value }] });
const skillCall = { content: [{ type: "tool_use" as const, id: "toolu_skill", name: "Skill", input: { skill: "quick", args: "the README" } }] };
const QUICK_SKILL = "---\ndescription: Summarises a file quickly\nmodel: haiku\n---\nSummarise $ARGUMENTS in one line.\n";
const modelsOf = (requests: ReadonlyArray<{ path: string; body: unknown }>) =>
  requests
    .filter((request) => request.path.startsWith("/v1/messages") && !request.path.includes("count_tokens"))
    .map((request) => (request.body as { model: string }).model);

describe("a skill's model: front matter", () => {
  it("switches the session's requests to the skill's model while the prompt that used it runs, then back", async () => {
    await using fixture = await startApiFixture({
      files: { "README.md": "# readme\n", ".claude/skills/quick/SKILL.md": QUICK_SKILL },
      scenario: { turns: [skillCall, text("One line."), text("Back on the session model.")] },
    });
    const { client } = fixture;
    const { sessionId } = await client.session.create.mutate();
    const idle = () => eventually(async () => expect((await client.session.get.query({ sessionId })).running).toBe(false), 30_000);
    await client.session.send.mutate({ sessionId, prompt: "Summarise the README" });
    await idle();
    await client.session.send.mutate({ sessionId, prompt: "And now?" });
    await idle();
    expect(modelsOf(fixture.sim.requests)).toEqual(["sim-model", "claude-haiku-5-5", "sim-model"]);
    expect((await client.session.get.query({ sessionId })).model).toBe("sim-model");
  });
});

describe("cairn -p: a skill's model", () => {
  let sim: ModelSim;
  let workspace: string;
  let env: Record<string, string>;
  beforeAll(async () => {
    sim = await startModelSim();
    workspace = await tempDir("skill-model-ws");
    await mkdir(join(workspace, ".claude", "skills", "quick"), { recursive: true });
    await writeFile(join(workspace, ".claude", "skills", "quick", "SKILL.md"), QUICK_SKILL);
    const home = await tempDir("skill-model-home");
    env = { ANTHROPIC_BASE_URL: sim.url, ANTHROPIC_API_KEY: "test", CAIRN_HOME: join(home, ".cairn"), HOME: home };
  });
  afterAll(async () => {
    await sim.close();
  });

  it("the Skill tool switches the following requests to the skill's model", async () => {
    sim.setScenario({ turns: [skillCall, text("One line.")] });
    const before = sim.requests.length;
    const run = await runCairn(["-p", "Summarise the README"], { cwd: workspace, env });
    expect(run.code).toBe(0);
    expect(modelsOf(sim.requests.slice(before))).toEqual(["claude-sonnet-5-5", "claude-haiku-5-5"]);
  });

  it("/quick runs the whole prompt on the skill's model", async () => {
    sim.setScenario({ turns: [text("One line.")] });
    const before = sim.requests.length;
    const run = await runCairn(["-p", "/quick the README"], { cwd: workspace, env });
    expect(run.code).toBe(0);
    expect(modelsOf(sim.requests.slice(before))).toEqual(["claude-haiku-5-5"]);
  });
});
