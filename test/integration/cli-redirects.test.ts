import { mkdir, readdir, readFile } from "node:fs/promises";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { instantiateRedirectCase, redirectCorpus } from "@cairn/core/testing";
import { startModelSim, type ModelSim } from "@cairn/model-sim";
import { runCairn } from "../support/cli.ts";
import { useTempDirs } from "../support/use-temp-dirs.ts";

const tempDir = useTempDirs();

// End to end: the scripted model asks for every redirection in the corpus through `cairn -p`, with
// the settings from the issue that first found the hole. None may write its file.
let sim: ModelSim;
let cairnHome: string;
type Line = Record<string, any>;

beforeAll(async () => {
  sim = await startModelSim();
  cairnHome = await tempDir("redirect-home");
});
afterAll(async () => sim.close());

const prefixRules = { permissions: { allow: ["Bash(git status:*)", "Bash(ls:*)", "Bash(echo:*)", "Bash(cat:*)", "Bash(tee:*)", "Bash(true:*)"] } };
const done = { content: [{ type: "text" as const, text: "ok" }] };
const bashCalls = (commands: readonly string[]) => ({
  content: commands.map((command, index) => ({ type: "tool_use" as const, id: `toolu_${index}`, name: "Bash", input: { command } })),
});

async function run(workspace: string, commands: readonly string[], args: string[]) {
  sim.setScenario({ turns: [bashCalls(commands), done] });
  const result = await runCairn(["-p", "write some files", "--output-format", "json", ...args], {
    cwd: workspace,
    env: { ANTHROPIC_BASE_URL: sim.url, ANTHROPIC_API_KEY: "test", CAIRN_HOME: cairnHome },
    timeoutMs: 170_000,
  });
  expect(result.code, result.stderr).toBe(0);
  const toolResults = ((sim.requests.at(-1)!.body as Line).messages.at(-1).content as Line[]).filter((block) => block.type === "tool_result");
  return { final: result.lines.at(-1)!, toolResults };
}

async function workspaceIn(parent: string): Promise<string> {
  const workspace = join(parent, "ws");
  await mkdir(workspace);
  return workspace;
}

describe("redirections through cairn -p", () => {
  it("the five commands from the report ask (and so are refused headless) and write nothing", async () => {
    const workspace = await workspaceIn(await tempDir("redirect-report"));
    const commands = ["ls > marker", "git status > marker", "ls 2> marker", "ls >> marker", "ls; echo x > marker"];
    const harmless = "ls > /dev/null 2>&1";
    const { final, toolResults } = await run(
      workspace,
      [...commands, harmless],
      ["--settings", JSON.stringify({ permissions: { allow: ["Bash(git status:*)", "Bash(ls:*)"] } })],
    );
    expect(final.permission_denials.map((denial: Line) => denial.tool_input.command)).toEqual(commands);
    expect(toolResults.map((toolResult) => toolResult.is_error ?? false)).toEqual([true, true, true, true, true, false]);
    expect(await readdir(workspace)).toEqual([]);
  });

  it(`none of the ${redirectCorpus.length} corpus forms writes its file, inside or outside the workspace`, async () => {
    const parent = await tempDir("redirect-corpus");
    const workspace = await workspaceIn(parent);
    const inside = redirectCorpus.map((entry, index) => instantiateRedirectCase(entry, `inside-${index}`));
    const outside = redirectCorpus.map((entry, index) => instantiateRedirectCase(entry, `../outside-${index}`));
    const commands = [...inside, ...outside].map((entry) => entry.command);
    const { final } = await run(workspace, commands, ["--settings", JSON.stringify(prefixRules)]);
    expect(final.permission_denials).toHaveLength(commands.length);
    expect(await readdir(workspace)).toEqual([]);
    expect(await readdir(parent)).toEqual(["ws"]);
  });

  it("outside-the-workspace targets are refused in acceptEdits too", async () => {
    const parent = await tempDir("redirect-accept");
    const workspace = await workspaceIn(parent);
    const commands = redirectCorpus.map((entry, index) => instantiateRedirectCase(entry, `../outside-${index}`).command);
    const { final } = await run(workspace, commands, ["--permission-mode", "acceptEdits", "--settings", JSON.stringify(prefixRules)]);
    expect(final.permission_denials).toHaveLength(commands.length);
    expect(await readdir(parent)).toEqual(["ws"]);
  });

  it("acceptEdits lets a redirection into the workspace run", async () => {
    const workspace = await workspaceIn(await tempDir("redirect-allowed"));
    const { final, toolResults } = await run(
      workspace,
      ["ls -a > listing.txt", "echo more >> listing.txt"],
      ["--permission-mode", "acceptEdits", "--settings", JSON.stringify(prefixRules)],
    );
    expect(final.permission_denials).toEqual([]);
    expect(toolResults.map((toolResult) => toolResult.is_error ?? false)).toEqual([false, false]);
    const listing = await readFile(join(workspace, "listing.txt"), "utf8");
    expect(listing).toContain("listing.txt");
    expect(listing).toContain("more");
  });
});
