import { readFile, readdir, writeFile, mkdir } from "node:fs/promises";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startModelSim, type ModelSim } from "@cairn/model-sim";
import { runCairn } from "../support/cli.ts";
import { useTempDirs } from "../support/use-temp-dirs.ts";

const tempDir = useTempDirs();

let sim: ModelSim;
let workspace: string;
let cairnHome: string;

beforeAll(async () => {
  sim = await startModelSim();
  workspace = await tempDir("tools-ws");
  cairnHome = await tempDir("tools-home");
  await mkdir(join(workspace, "src"));
  await writeFile(
    join(workspace, "src", "math.ts"),
    "export function divide(a: number, b: number) {\n  // TODO: guard against division by zero\n  return a / b;\n}\n",
  );
  await writeFile(join(workspace, "README.md"), "# Example\n\nTODO: write docs\n");
});
afterAll(async () => sim.close());

type Line = Record<string, any>;

describe("cairn -p with the real tools, sandbox and model-sim", () => {
  it("runs three read-only calls in parallel, then Edit, then Bash ls, and really changes the file", async () => {
    const math = join(workspace, "src", "math.ts");
    sim.setScenario({
      turns: [
        {
          content: [
            { type: "text", text: "Let me look around." },
            { type: "tool_use", id: "toolu_glob", name: "Glob", input: { pattern: "**/*.ts" } },
            { type: "tool_use", id: "toolu_grep", name: "Grep", input: { pattern: "TODO", output_mode: "content", "-n": true } },
            { type: "tool_use", id: "toolu_read", name: "Read", input: { file_path: math } },
          ],
        },
        {
          content: [
            {
              type: "tool_use",
              id: "toolu_edit",
              name: "Edit",
              input: {
                file_path: math,
                old_string: "  // TODO: guard against division by zero\n  return a / b;",
                new_string: '  if (b === 0) throw new Error("division by zero");\n  return a / b;',
              },
            },
          ],
        },
        { content: [{ type: "tool_use", id: "toolu_ls", name: "Bash", input: { command: "ls", description: "List files" } }] },
        { content: [{ type: "text", text: "Fixed the division by zero." }] },
      ],
    });
    const run = await runCairn(["-p", "Fix the TODO in src/math.ts", "--permission-mode", "acceptEdits", "--output-format", "stream-json"], {
      cwd: workspace,
      env: { ANTHROPIC_BASE_URL: sim.url, ANTHROPIC_API_KEY: "test", CAIRN_HOME: cairnHome },
    });
    expect(run.stderr).toBe("");
    expect(run.code).toBe(0);
    expect(run.lines.at(-1)).toMatchObject({ subtype: "success", num_turns: 4, result: "Fixed the division by zero.", permission_denials: [] });
    expect(await readFile(math, "utf8")).toContain('if (b === 0) throw new Error("division by zero");');

    const bodies = sim.requests.filter((request) => request.path === "/v1/messages").map((request) => request.body as Line);
    const results = bodies[1]!.messages.at(-1).content as Line[];
    expect(results.map((block) => block.tool_use_id)).toEqual(["toolu_glob", "toolu_grep", "toolu_read"]);
    expect(results.every((block) => !block.is_error)).toBe(true);
    expect(results[1]!.content).toContain("src/math.ts:2:");
    const ls = (bodies[3]!.messages.at(-1).content as Line[])[0]!;
    expect(ls.content).toContain("README.md");

    const sessionId = String(run.lines[0]!.session_id);
    const projects = join(cairnHome, "projects");
    const [project] = await readdir(projects);
    const transcript = (await readFile(join(projects, project!, `${sessionId}.jsonl`), "utf8"))
      .trim()
      .split("\n")
      .map((line) => JSON.parse(line) as Line);
    const calls = transcript.filter((line) => line.toolCall).map((line) => line.toolCall as Line);
    expect(calls.map((call) => call.name)).toEqual(expect.arrayContaining(["Glob", "Grep", "Read", "Edit", "Bash"]));
    const parallel = calls.filter((call) => ["Glob", "Grep", "Read"].includes(call.name));
    // The three read-only calls share one batch and overlap in time; the Edit ran in a batch of its own.
    expect(new Set(parallel.map((call) => call.batch)).size).toBe(1);
    const latestStart = Math.max(...parallel.map((call) => call.startedAt));
    const earliestEnd = Math.min(...parallel.map((call) => call.endedAt));
    expect(latestStart).toBeLessThanOrEqual(earliestEnd);
    const edit = calls.find((call) => call.name === "Edit")!;
    expect(edit.batch).not.toBe(parallel[0]!.batch);
    expect(edit.decision).toMatchObject({ behavior: "allow", reason: { type: "mode", mode: "acceptEdits" } });
  });
});

describe("cairn rewind after a cairn -p turn", () => {
  it("restores the files the turn changed, Bash changes included", async () => {
    const notes = join(workspace, "notes.txt");
    await writeFile(notes, "before\n");
    sim.setScenario({
      turns: [
        { content: [{ type: "tool_use", id: "toolu_w", name: "Bash", input: { command: "echo after > notes.txt && touch created.txt" } }] },
        { content: [{ type: "text", text: "changed" }] },
      ],
    });
    const env = { ANTHROPIC_BASE_URL: sim.url, ANTHROPIC_API_KEY: "test", CAIRN_HOME: cairnHome };
    const run = await runCairn(["-p", "change notes", "--allowedTools", "Bash", "--output-format", "json"], { cwd: workspace, env });
    expect(run.code).toBe(0);
    expect(await readFile(notes, "utf8")).toBe("after\n");
    const sessionId = String(run.lines.at(-1)!.session_id);
    const [project] = await readdir(join(cairnHome, "projects"));
    const lines = (await readFile(join(cairnHome, "projects", project!, `${sessionId}.jsonl`), "utf8"))
      .trim()
      .split("\n")
      .map((line) => JSON.parse(line) as Line);
    const prompt = lines.find((line) => line.type === "user")!;
    expect(lines.some((line) => line.type === "cairn-checkpoint" && line.messageUuid === prompt.uuid)).toBe(true);

    const rewind = await runCairn(["rewind", sessionId, String(prompt.uuid), "--mode", "files"], { cwd: workspace, env });
    expect(rewind.stderr).toBe("");
    expect(rewind.code).toBe(0);
    expect(await readFile(notes, "utf8")).toBe("before\n");
    expect(await readdir(workspace)).not.toContain("created.txt");
  });
});
