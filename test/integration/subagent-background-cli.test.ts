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

beforeAll(async () => {
  sim = await startModelSim();
  workspace = await tempDir("bg-agent-ws");
  env = { ANTHROPIC_BASE_URL: sim.url, ANTHROPIC_API_KEY: "test", CAIRN_HOME: await tempDir("bg-agent-home") };
});
afterAll(async () => {
  await sim.close();
});

describe("cairn -p with a background agent", () => {
  it("returns the agent id at once, keeps going, and ends only after the agent's result came back as a notification", async () => {
    const subagentTask = "Survey the workspace in the background";
    sim.setScenario({
      turns: [
        {
          match: { firstMessageIncludes: "Start a survey" },
          content: [
            {
              type: "tool_use",
              id: "toolu_bg",
              name: "Agent",
              input: { description: "survey", prompt: subagentTask, subagent_type: "general-purpose", model: "haiku", run_in_background: true },
            },
          ],
        },
        // The subagent's answer is held long enough for the main loop to finish its own turn first.
        {
          match: { firstMessageIncludes: subagentTask },
          content: [{ type: "text", text: "Survey done: 0 files." }],
          faults: [{ kind: "stall", afterEvents: 1, ms: 1_500 }],
        },
        { match: { firstMessageIncludes: "Start a survey" }, content: [{ type: "text", text: "The survey runs in the background." }] },
        { match: { firstMessageIncludes: "Start a survey" }, content: [{ type: "text", text: "The survey found 0 files." }] },
      ],
    });
    const before = sim.requests.length;
    const run = await runCairn(["-p", "Start a survey", "--output-format", "json"], { cwd: workspace, env });
    expect(run.stderr).toBe("");
    expect(run.code).toBe(0);
    const requests = sim.requests.slice(before);
    const firstMessage = (request: { body: unknown }) => JSON.stringify((request.body as Line).messages[0]);
    const main = requests.filter((request) => firstMessage(request).includes("Start a survey"));
    const sub = requests.filter((request) => firstMessage(request).includes(subagentTask));
    expect(sub).toHaveLength(1);
    expect((sub[0]!.body as Line).model).toBe("claude-haiku-5-5");
    expect(main).toHaveLength(3);
    const launched = (main[1]!.body as Line).messages.at(-1).content.find((block: Line) => block.type === "tool_result");
    expect(launched.content).toMatch(/Async agent launched successfully\.\nagentId: a[0-9a-f]{16}/);
    const agentId = /agentId: (a[0-9a-f]{16})/.exec(launched.content)![1];
    expect(sent(main[1]!)).not.toContain("task-notification");
    expect(sent(main[2]!)).toContain(`<task-id>${agentId}</task-id>`);
    expect(sent(main[2]!)).toContain("Survey done: 0 files.");
    expect(run.lines.at(-1)).toMatchObject({ subtype: "success", result: "The survey found 0 files." });
  });
});
