import { execFileSync } from "node:child_process";
import { mkdir, readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startModelSim, type ModelSim } from "@cairn/model-sim";
import { runCairn } from "../support/cli.ts";
import { useTempDirs } from "../support/use-temp-dirs.ts";

const tempDir = useTempDirs();

type Line = Record<string, any>;
const text = (value: string) => ({ content: [{ type: "text" as const, text: value }] });
const read = (id: string, path: string) => ({ content: [{ type: "tool_use" as const, id, name: "Read", input: { file_path: path } }] });

let sim: ModelSim;
let workspace: string;
let home: string;
let cairnHome: string;
let env: Record<string, string>;

/** The request bodies the simulator got from the last run (`count` requests). */
const lastRequests = (count: number) => sim.requests.slice(-count).map((request) => request.body as Line);
const firstUserMessage = (body: Line) => JSON.stringify(body.messages[0].content);
const lastToolResult = (body: Line) => JSON.stringify(body.messages.at(-1).content);

beforeAll(async () => {
  sim = await startModelSim();
  workspace = await tempDir("memory-ws");
  home = await tempDir("memory-home");
  cairnHome = join(home, ".cairn");
  await mkdir(join(workspace, "docs"), { recursive: true });
  await mkdir(join(workspace, "src", "lib"), { recursive: true });
  await mkdir(join(home, ".claude"), { recursive: true });
  await mkdir(cairnHome, { recursive: true });
  await writeFile(join(workspace, "CLAUDE.md"), "# Project\nFollow @docs/conventions.md. Never import `@docs/not-an-import.md` in code.\n");
  await writeFile(join(workspace, "docs", "conventions.md"), "CONVENTIONS: two-space indent. See @cycle-a.md\n");
  await writeFile(join(workspace, "docs", "cycle-a.md"), "CYCLE-A then @cycle-b.md\n");
  await writeFile(join(workspace, "docs", "cycle-b.md"), "CYCLE-B back to @cycle-a.md\n");
  await writeFile(join(workspace, "docs", "not-an-import.md"), "NOT-IMPORTED\n");
  await writeFile(join(workspace, "CLAUDE.local.md"), "LOCAL: my sandbox is at port 4000\n");
  await writeFile(join(home, ".claude", "CLAUDE.md"), "USER-CLAUDE: I like short answers\n");
  await writeFile(join(cairnHome, "CLAUDE.md"), "USER-CAIRN: call me Sam\n");
  await writeFile(join(workspace, "src", "CLAUDE.md"), "SRC-MEMORY: src uses named exports only\n");
  await writeFile(join(workspace, "src", "math.ts"), "export const add = (a: number, b: number) => a + b;\n");
  await writeFile(join(workspace, "src", "lib", "util.ts"), "export const id = <T>(value: T) => value;\n");
  const git = (...args: string[]) =>
    execFileSync("git", ["-c", "user.email=t@example.com", "-c", "user.name=Test", ...args], { cwd: workspace, stdio: "pipe" });
  git("init", "-q", "-b", "main");
  git("add", "CLAUDE.md", "docs");
  git("commit", "-q", "-m", "first commit: memory files");
  env = { ANTHROPIC_BASE_URL: sim.url, ANTHROPIC_API_KEY: "test", CAIRN_HOME: cairnHome, HOME: home };
});
afterAll(async () => {
  await sim.close();
});

describe("cairn -p: memory files", () => {
  it("sends user, project and local memory with imports in the first user message, and the git and environment context", async () => {
    sim.setScenario({ turns: [text("Understood.")] });
    const run = await runCairn(["-p", "What are the rules?", "--verbose"], { cwd: workspace, env });
    expect(run.code).toBe(0);
    const [body] = lastRequests(1);
    const first = firstUserMessage(body!);
    for (const name of [
      join(cairnHome, "CLAUDE.md"),
      join(home, ".claude", "CLAUDE.md"),
      join(workspace, "CLAUDE.md"),
      join(workspace, "docs", "conventions.md"),
      join(workspace, "CLAUDE.local.md"),
    ]) {
      expect(first).toContain(`Contents of ${name}`);
    }
    for (const marker of ["USER-CAIRN", "USER-CLAUDE", "CONVENTIONS: two-space indent", "LOCAL: my sandbox", "CYCLE-A", "CYCLE-B"])
      expect(first).toContain(marker);
    expect(first).not.toContain("NOT-IMPORTED");
    expect(first).not.toContain("SRC-MEMORY");
    expect(first.indexOf("claudeMd")).toBeLessThan(first.indexOf("What are the rules?"));
    // The cycle is cut where it closes, and each file is sent once.
    expect(first.split("CYCLE-A then").length).toBe(2);
    expect(run.stderr).toContain("memory_import_cycle");
    const system = JSON.stringify(body!.system);
    expect(system).toContain("Is directory a git repo: Yes");
    expect(system).toContain("Current branch: main");
    expect(system).toContain("Main branch (you will usually use this for PRs): main");
    expect(system).toContain("first commit: memory files");
    expect(system).toMatch(/\?\? CLAUDE\.local\.md/);
    expect(system).toMatch(/Today's date: \d{4}-\d{2}-\d{2}/);
    expect(system).not.toContain("USER-CAIRN");
  });

  it("loads src/CLAUDE.md lazily with the first tool result below src, once per session", async () => {
    sim.setScenario({ turns: [read("toolu_1", join(workspace, "src", "math.ts")), read("toolu_2", join(workspace, "src", "lib", "util.ts")), text("Done.")] });
    const run = await runCairn(["-p", "Read the sources"], { cwd: workspace, env });
    expect(run.code).toBe(0);
    const [first, second, third] = lastRequests(3);
    expect(JSON.stringify(first!.messages)).not.toContain("SRC-MEMORY");
    expect(lastToolResult(second!)).toContain("export const add");
    expect(lastToolResult(second!)).toContain(`Contents of ${join(workspace, "src", "CLAUDE.md")}`);
    expect(lastToolResult(second!)).toContain("SRC-MEMORY");
    expect(lastToolResult(third!)).toContain("export const id");
    expect(lastToolResult(third!)).not.toContain("SRC-MEMORY");
  });

  it("an edit to a memory file made during the run reaches the next request", async () => {
    const path = join(workspace, "CLAUDE.local.md");
    sim.setScenario({
      turns: [
        read("toolu_r", path),
        { content: [{ type: "tool_use", id: "toolu_e", name: "Edit", input: { file_path: path, old_string: "port 4000", new_string: "port 5000" } }] },
        text("Updated."),
      ],
    });
    const run = await runCairn(["-p", "Move my sandbox port", "--permission-mode", "acceptEdits"], { cwd: workspace, env });
    expect(run.code).toBe(0);
    const [first, second, third] = lastRequests(3);
    expect(firstUserMessage(first!)).toContain("port 4000");
    expect(firstUserMessage(second!)).toContain("port 4000");
    expect(firstUserMessage(third!)).toContain("port 5000");
    expect(firstUserMessage(third!)).not.toContain("port 4000");
    expect(await readFile(path, "utf8")).toContain("port 5000");
  });
});
