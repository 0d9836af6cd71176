import { mkdir, readdir, readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startModelSim, type ModelSim } from "@cairn/model-sim";
import { runCairn } from "../support/cli.ts";
import { useTempDirs } from "../support/use-temp-dirs.ts";

const tempDir = useTempDirs();

// sandbox.autoAllowBashIfSandboxed through `cairn -p`, with the real sandbox.
let sim: ModelSim;
type Line = Record<string, any>;

beforeAll(async () => {
  sim = await startModelSim();
});
afterAll(async () => sim.close());

const commands = ["touch made.txt && echo hi > note.txt", "rm keep.txt", "echo x > ../outside.txt"];

async function run(settings: object) {
  const parent = await tempDir("sandbox-allow");
  const workspace = join(parent, "ws");
  const cairnHome = join(parent, "home");
  await Promise.all([mkdir(workspace), mkdir(cairnHome)]);
  await writeFile(join(workspace, "keep.txt"), "original\n");
  sim.setScenario({
    turns: [
      { content: commands.map((command, index) => ({ type: "tool_use" as const, id: `toolu_${index}`, name: "Bash", input: { command } })) },
      { content: [{ type: "text", text: "ok" }] },
    ],
  });
  const result = await runCairn(["-p", "work", "--output-format", "json", "--settings", JSON.stringify(settings)], {
    cwd: workspace,
    env: { ANTHROPIC_BASE_URL: sim.url, ANTHROPIC_API_KEY: "test", CAIRN_HOME: cairnHome },
  });
  expect(result.code, result.stderr).toBe(0);
  const projects = join(cairnHome, "projects");
  const [project] = await readdir(projects);
  const [transcript] = (await readdir(join(projects, project!))).filter((name) => name.endsWith(".jsonl"));
  const lines = (await readFile(join(projects, project!, transcript!), "utf8"))
    .trim()
    .split("\n")
    .map((line) => JSON.parse(line) as Line);
  const decisions = lines.filter((line) => line.toolCall?.decision).map((line) => line.toolCall.decision.reason as Line);
  return { parent, workspace, final: result.lines.at(-1)!, decisions };
}

describe("sandbox auto-allow through cairn -p", () => {
  it("runs Bash without asking inside the sandbox; a deny rule and a write outside the workspace still decide", async () => {
    const { parent, workspace, final, decisions } = await run({ sandbox: { autoAllowBashIfSandboxed: true }, permissions: { deny: ["Bash(rm:*)"] } });
    // The third asks (a write outside the workspace); print mode turns the question into a refusal.
    expect(decisions.map((reason) => reason.type)).toEqual(["sandbox", "rule", "headless"]);
    const toolResults = ((sim.requests.at(-1)!.body as Line).messages.at(-1).content as Line[]).filter((block) => block.type === "tool_result");
    expect(String(toolResults[2]!.content)).toContain("The command writes outside the workspace: ../outside.txt (>)");
    expect(final.permission_denials.map((denial: Line) => denial.tool_input.command)).toEqual(commands.slice(1));
    expect((await readdir(workspace)).sort()).toEqual(["keep.txt", "made.txt", "note.txt"]);
    expect(await readFile(join(workspace, "note.txt"), "utf8")).toBe("hi\n");
    expect((await readdir(parent)).sort()).toEqual(["home", "ws"]);
  });

  it("without the setting the same command is refused headless", async () => {
    const { workspace, final } = await run({ permissions: { deny: ["Bash(rm:*)"] } });
    expect(final.permission_denials).toHaveLength(3);
    expect(await readdir(workspace)).toEqual(["keep.txt"]);
  });
});
