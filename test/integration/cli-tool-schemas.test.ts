import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startModelSim, type ModelSim } from "@cairn/model-sim";
import { builtinTools, createAgentTool, createSkillTool, toApiTool, type AnyTool } from "@cairn/core";
import { runCairn } from "../support/cli.ts";
import { useTempDirs } from "../support/use-temp-dirs.ts";

const tempDir = useTempDirs();

let sim: ModelSim;
beforeAll(async () => {
  sim = await startModelSim();
});
afterAll(async () => sim.close());

type ApiTool = { name: string; description: string; input_schema: Record<string, unknown> };

describe("the tools cairn -p sends", () => {
  it("carry the JSON Schemas derived from the tools' zod schemas in the sources (the bundle sends precomputed ones)", async () => {
    const workspace = await tempDir("tool-schemas-ws");
    const home = await tempDir("tool-schemas-home");
    sim.setScenario({ turns: [{ content: [{ type: "text", text: "ok" }] }] });
    const before = sim.requests.length;
    const run = await runCairn(["-p", "hello"], { cwd: workspace, env: { ANTHROPIC_BASE_URL: sim.url, ANTHROPIC_API_KEY: "test", CAIRN_HOME: home } });
    expect(run.stderr).toBe("");
    expect(run.code).toBe(0);
    const [request] = sim.requests.slice(before);
    const sent = new Map(((request!.body as { tools: ApiTool[] }).tools ?? []).map((tool) => [tool.name, tool]));

    const sourceTools: AnyTool[] = [...builtinTools(), createAgentTool(), createSkillTool()];
    const compared = sourceTools.filter((tool) => sent.has(tool.name));
    // Every tool a default run offers is one of these, and each is checked.
    expect(compared.map((tool) => tool.name).sort()).toEqual([...sent.keys()].sort());
    expect(compared.map((tool) => tool.name)).toEqual(expect.arrayContaining(["Read", "Write", "Edit", "Glob", "Grep", "Bash", "Agent"]));
    for (const tool of compared) expect(sent.get(tool.name)!.input_schema, tool.name).toEqual(toApiTool(tool).input_schema);
  });
});
