import { mkdir, readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startModelSim, type ModelSim } from "@cairn/model-sim";
import { runCairn } from "../support/cli.ts";
import { useTempDirs } from "../support/use-temp-dirs.ts";

const tempDir = useTempDirs();

type Line = Record<string, any>;
const text = (value: string) => ({ content: [{ type: "text" as const, text: value }] });

let sim: ModelSim;
let workspace: string;
let home: string;
let env: Record<string, string>;

const lastRequests = (count: number) => sim.requests.slice(-count).map((request) => request.body as Line);
const firstUserMessage = (body: Line) => JSON.stringify(body.messages[0].content);

beforeAll(async () => {
  sim = await startModelSim();
  workspace = await tempDir("skills-ws");
  home = await tempDir("skills-home");
  const skills = join(workspace, ".claude", "skills");
  await mkdir(join(skills, "release-notes"), { recursive: true });
  await mkdir(join(skills, "scaffold"), { recursive: true });
  await mkdir(join(skills, "broken"), { recursive: true });
  await mkdir(join(workspace, ".claude", "commands"), { recursive: true });
  await mkdir(join(home, ".claude", "skills", "greet"), { recursive: true });
  await writeFile(
    join(skills, "release-notes", "SKILL.md"),
    "---\nname: release-notes\ndescription: Writes release notes from the changelog\nargument-hint: <version>\n---\nWrite the release notes for version $ARGUMENTS. Use template.md from this skill's directory.\n",
  );
  await writeFile(join(skills, "release-notes", "template.md"), "## Version\n");
  await writeFile(
    join(skills, "scaffold", "SKILL.md"),
    "---\ndescription: Creates files for a new module\nallowed-tools: Write\n---\nCreate the module $ARGUMENTS.\n",
  );
  await writeFile(join(skills, "broken", "SKILL.md"), "---\nname: broken\ndescription: [never closed\n---\nBody.\n");
  await writeFile(join(home, ".claude", "skills", "greet", "SKILL.md"), "---\ndescription: Greets the user by name\n---\nSay hello to $1 and mention $2.\n");
  await writeFile(
    join(workspace, ".claude", "commands", "deploy.md"),
    "---\ndescription: Deploys to an environment\nargument-hint: <env> <tag>\n---\nDeploy tag $2 to $1 (all: $ARGUMENTS).\n",
  );
  env = { ANTHROPIC_BASE_URL: sim.url, ANTHROPIC_API_KEY: "test", CAIRN_HOME: join(home, ".cairn"), HOME: home };
});
afterAll(async () => {
  await sim.close();
});

describe("cairn -p: skills", () => {
  it("lists skills in the first request and the Skill tool loads one with its arguments and directory", async () => {
    sim.setScenario({
      turns: [{ content: [{ type: "tool_use", id: "toolu_skill", name: "Skill", input: { skill: "release-notes", args: "2.1.0" } }] }, text("Notes written.")],
    });
    const run = await runCairn(["-p", "Write the release notes for 2.1.0", "--output-format", "stream-json", "--verbose"], { cwd: workspace, env });
    expect(run.code).toBe(0);
    expect(run.lines[0]!.tools).toContain("Skill");
    const [first, second] = lastRequests(2);
    const listing = firstUserMessage(first!);
    expect(listing).toContain("The following skills are available for use with the Skill tool:");
    expect(listing).toContain("- release-notes: Writes release notes from the changelog (arguments: <version>)");
    expect(listing).toContain("- greet: Greets the user by name");
    expect(listing).toContain("- deploy: Deploys to an environment");
    expect(listing).not.toContain("broken");
    expect(first!.tools.map((tool: Line) => tool.name)).toContain("Skill");
    const result = second!.messages.at(-1).content[0];
    expect(result).toMatchObject({ type: "tool_result", tool_use_id: "toolu_skill" });
    expect(result.is_error).toBeUndefined();
    expect(result.content).toContain(`Base directory for this skill: ${join(workspace, ".claude", "skills", "release-notes")}`);
    expect(result.content).toContain("Write the release notes for version 2.1.0.");
    // A broken skill is reported with --verbose; the others still work.
    expect(run.stderr).toContain(`skill /broken is invalid (${join(workspace, ".claude", "skills", "broken", "SKILL.md")}): invalid YAML front matter`);
  });

  it("a skill's allowed-tools let the model use them without asking while the skill is in use", async () => {
    const target = join(workspace, "module.ts");
    sim.setScenario({
      turns: [
        { content: [{ type: "tool_use", id: "toolu_skill", name: "Skill", input: { skill: "scaffold", args: "module" } }] },
        { content: [{ type: "tool_use", id: "toolu_write", name: "Write", input: { file_path: target, content: "export {};\n" } }] },
        text("Created."),
      ],
    });
    const run = await runCairn(["-p", "Scaffold a module", "--output-format", "json"], { cwd: workspace, env });
    expect(run.code).toBe(0);
    expect(run.lines.at(-1)!.permission_denials).toEqual([]);
    expect(await readFile(target, "utf8")).toBe("export {};\n");
    const [, second] = lastRequests(3);
    expect(second!.messages.at(-1).content[0].content).toContain("Allowed without asking while this skill is in use: Write");
  });

  it("without the skill the same Write is denied in print mode", async () => {
    const target = join(workspace, "other.ts");
    sim.setScenario({
      turns: [{ content: [{ type: "tool_use", id: "toolu_write", name: "Write", input: { file_path: target, content: "x" } }] }, text("Could not.")],
    });
    const run = await runCairn(["-p", "Write other.ts", "--output-format", "json"], { cwd: workspace, env });
    expect(run.lines.at(-1)!.permission_denials).toHaveLength(1);
    await expect(readFile(target, "utf8")).rejects.toThrow();
  });
});

describe("cairn -p: slash commands", () => {
  it("/<skill> args sends the skill's text with $ARGUMENTS and $1, $2 substituted", async () => {
    sim.setScenario({ turns: [text("Hello Ada.")] });
    const run = await runCairn(["-p", "/greet Ada Lovelace-the-engine"], { cwd: workspace, env });
    expect(run.code).toBe(0);
    const [body] = lastRequests(1);
    const prompt = firstUserMessage(body!);
    expect(prompt).toContain("<command-name>/greet</command-name>");
    expect(prompt).toContain("Say hello to Ada and mention Lovelace-the-engine.");
  });

  it("/<command> runs a legacy .claude/commands file", async () => {
    sim.setScenario({ turns: [text("Deploying.")] });
    const run = await runCairn(["-p", "/deploy staging v7"], { cwd: workspace, env });
    expect(run.code).toBe(0);
    expect(firstUserMessage(lastRequests(1)[0]!)).toContain("Deploy tag v7 to staging (all: staging v7).");
  });

  it("an unknown command is a clear error and sends nothing to the model", async () => {
    const before = sim.requests.length;
    const run = await runCairn(["-p", "/no-such-command please"], { cwd: workspace, env });
    expect(run.code).toBe(2);
    expect(run.stderr).toContain("Unknown command /no-such-command");
    expect(run.stdout).toBe("");
    expect(sim.requests.length).toBe(before);
  });

  it("/help lists built-ins, skills and commands without calling the model; a broken skill says why", async () => {
    const before = sim.requests.length;
    const run = await runCairn(["-p", "/help"], { cwd: workspace, env });
    expect(run.code).toBe(0);
    for (const line of ["/compact [instructions]", "/clear", "/model <name>", "/release-notes <version>", "/deploy <env> <tag>", "/greet"])
      expect(run.stdout).toContain(line);
    expect(run.stdout).toMatch(/\/broken — invalid YAML front matter/);
    const broken = await runCairn(["-p", "/broken"], { cwd: workspace, env });
    expect(broken.code).toBe(2);
    expect(broken.stderr).toContain("/broken cannot be used: invalid YAML front matter");
    expect(sim.requests.length).toBe(before);
  });
});
