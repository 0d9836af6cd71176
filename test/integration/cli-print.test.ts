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
let env: Record<string, string>;

beforeAll(async () => {
  sim = await startModelSim();
  workspace = await tempDir("cli-ws");
  cairnHome = await tempDir("cli-home");
  await mkdir(join(workspace, "src"));
  await writeFile(join(workspace, "src", "math.ts"), "export const add = (a: number, b: number) => a + b;\n");
  env = { ANTHROPIC_BASE_URL: sim.url, ANTHROPIC_API_KEY: "test", CAIRN_HOME: cairnHome };
});
afterAll(async () => {
  await sim.close();
});

type Line = Record<string, any>;
const text = (value: string) => ({ content: [{ type: "text" as const, text: value }] });

async function transcriptLines(sessionId: string): Promise<Line[]> {
  const projects = join(cairnHome, "projects");
  for (const dir of await readdir(projects)) {
    const file = join(projects, dir, `${sessionId}.jsonl`);
    const content = await readFile(file, "utf8").catch(() => null);
    if (content)
      return content
        .trim()
        .split("\n")
        .map((line) => JSON.parse(line) as Line);
  }
  throw new Error(`no transcript for ${sessionId}`);
}

describe("cairn -p as a child process against model-sim", () => {
  it("prints the answer in text mode and exits 0", async () => {
    sim.setScenario({ turns: [text("The answer is 42.")] });
    const run = await runCairn(["-p", "What is the answer?"], { cwd: workspace, env });
    expect(run.stderr).not.toContain("Error");
    expect(run.code).toBe(0);
    expect(run.stdout).toBe("The answer is 42.\n");
    const body = sim.requests.at(-1)!.body as Line;
    expect(body.messages[0].content[0].text).toBe("What is the answer?");
    expect(JSON.stringify(body.system)).toContain(`Working directory: ${workspace}`);
  });

  it("streams Claude Code's stream-json lines, runs a tool and writes a complete transcript", async () => {
    sim.setScenario({
      turns: [
        {
          content: [
            { type: "text", text: "Reading." },
            { type: "tool_use", id: "toolu_r", name: "Read", input: { file_path: join(workspace, "src", "math.ts") } },
          ],
        },
        text("It adds two numbers."),
      ],
    });
    const run = await runCairn(["-p", "Explain src/math.ts", "--output-format", "stream-json", "--verbose"], { cwd: workspace, env });
    expect(run.code).toBe(0);
    const types = run.lines.map((line) => `${line.type}${line.subtype ? `:${line.subtype}` : ""}`);
    expect(types).toEqual(["system:init", "user", "assistant", "user", "assistant", "result:success"]);
    const init = run.lines[0]!;
    expect(init).toMatchObject({ cwd: workspace, model: "claude-sonnet-5-5", permissionMode: "default" });
    expect(init.tools).toEqual(expect.arrayContaining(["Read", "Write", "Edit", "Glob", "Grep", "Bash", "TodoWrite"]));
    const toolResult = run.lines[3]!.message.content[0];
    expect(toolResult).toMatchObject({ type: "tool_result", tool_use_id: "toolu_r" });
    expect(toolResult.content).toContain("export const add");
    const result = run.lines.at(-1)!;
    expect(result).toMatchObject({ num_turns: 2, result: "It adds two numbers.", is_error: false, permission_denials: [] });
    expect(result.usage.output_tokens).toBeGreaterThan(0);

    const lines = await transcriptLines(String(init.session_id));
    expect(lines[0]).toMatchObject({ type: "cairn-session", cwd: workspace, cairnSchema: 1 });
    const conversation = lines.filter((line) => line.type === "user" || line.type === "assistant");
    expect(conversation.map((line) => line.type)).toEqual(["user", "assistant", "user", "assistant"]);
    for (const [index, line] of conversation.entries()) {
      expect(line).toMatchObject({ sessionId: init.session_id, cwd: workspace, isSidechain: false });
      expect(line.parentUuid).toBe(index === 0 ? null : conversation[index - 1]!.uuid);
    }
    expect(conversation[2]!.toolCall).toMatchObject({ name: "Read", isError: false });
    expect(conversation[2]!.toolCall.durationMs).toBeGreaterThanOrEqual(0);
  });

  it("in print mode an ask becomes a denial the model is told about, and the run still exits 0", async () => {
    sim.setScenario({
      turns: [
        { content: [{ type: "tool_use", id: "toolu_w", name: "Write", input: { file_path: join(workspace, "new.txt"), content: "hi" } }] },
        text("I could not write the file."),
      ],
    });
    const run = await runCairn(["-p", "Write new.txt", "--output-format", "json"], { cwd: workspace, env });
    expect(run.code).toBe(0);
    const result = run.lines.at(-1)!;
    expect(result.permission_denials).toEqual([
      { tool_name: "Write", tool_use_id: "toolu_w", tool_input: { file_path: join(workspace, "new.txt"), content: "hi" } },
    ]);
    const denied = (sim.requests.at(-1)!.body as Line).messages.at(-1).content[0];
    expect(denied).toMatchObject({ type: "tool_result", tool_use_id: "toolu_w", is_error: true });
    await expect(readFile(join(workspace, "new.txt"), "utf8")).rejects.toThrow();
  });

  it("honours --allowedTools and --max-turns", async () => {
    const write = (name: string) => ({
      content: [{ type: "tool_use" as const, id: `toolu_${name}`, name: "Write", input: { file_path: join(workspace, name), content: name } }],
    });
    sim.setScenario({ turns: [write("a.txt"), write("b.txt"), text("never reached")] });
    const run = await runCairn(["-p", "Write files", "--allowedTools", "Write", "--max-turns", "2", "--output-format", "json"], { cwd: workspace, env });
    expect(run.code).toBe(0);
    expect(run.lines.at(-1)).toMatchObject({ subtype: "error_max_turns", num_turns: 2 });
    expect(await readFile(join(workspace, "a.txt"), "utf8")).toBe("a.txt");
    expect(await readFile(join(workspace, "b.txt"), "utf8")).toBe("b.txt");
    expect(sim.remainingTurns()).toBe(1);
  });

  it("resumes a session with --resume and sends the earlier conversation", async () => {
    sim.setScenario({ turns: [text("First answer."), text("Second answer.")] });
    const first = await runCairn(["-p", "First question", "--output-format", "json"], { cwd: workspace, env });
    const sessionId = String(first.lines.at(-1)!.session_id);
    const second = await runCairn(["-p", "Second question", "--resume", sessionId, "--output-format", "json"], { cwd: workspace, env });
    expect(second.code).toBe(0);
    expect(second.lines.at(-1)).toMatchObject({ session_id: sessionId, result: "Second answer." });
    const body = sim.requests.at(-1)!.body as Line;
    expect(body.messages.map((message: Line) => message.role)).toEqual(["user", "assistant", "user"]);
    expect(JSON.stringify(body.messages)).toContain("First question");
  });

  it("retries a 529 and reports the retry as a stream-json system line", async () => {
    sim.setScenario({ turns: [{ ...text("after a retry"), faults: [{ kind: "http", status: 529 }] }] });
    const run = await runCairn(["-p", "hi", "--output-format", "stream-json"], { cwd: workspace, env });
    expect(run.code).toBe(0);
    expect(run.lines.find((line) => line.subtype === "api_retry")).toMatchObject({ attempt: 1, error_status: 529, error: "overloaded" });
  });

  it("gives a clear usage error for bad flags", async () => {
    const run = await runCairn(["-p", "x", "--output-format", "xml"], { cwd: workspace, env });
    expect(run.code).toBe(2);
    expect(run.stderr).toContain("--output-format must be one of text, json, stream-json");
    const version = await runCairn(["--version"], { cwd: workspace, env });
    expect(version.stdout).toMatch(/^\d+\.\d+\.\d+ \(Cairn\)/);
  });
});

describe("cairn -p /compact", () => {
  it("summarises a resumed session with the given instructions and writes a boundary", async () => {
    sim.setScenario({
      turns: [text("First answer with details."), text("<summary>The user asked a question; it was answered.</summary>"), text("After compaction.")],
    });
    const first = await runCairn(["-p", "A question", "--output-format", "json"], { cwd: workspace, env });
    const sessionId = String(first.lines.at(-1)!.session_id);
    const compact = await runCairn(["-p", "/compact keep the numbers", "--resume", sessionId], { cwd: workspace, env });
    expect(compact.stderr).toBe("");
    expect(compact.code).toBe(0);
    expect(compact.stdout).toMatch(/^Compacted the conversation/);
    expect(JSON.stringify(sim.requests.at(-1)!.body)).toContain("keep the numbers");
    const lines = await transcriptLines(sessionId);
    const boundary = lines.find((line) => line.type === "system" && line.subtype === "compact_boundary");
    expect(boundary).toMatchObject({ parentUuid: null, compactMetadata: { trigger: "manual" } });
    expect(lines.some((line) => line.isCompactSummary)).toBe(true);

    const after = await runCairn(["-p", "Next", "--resume", sessionId, "--output-format", "json"], { cwd: workspace, env });
    expect(after.lines.at(-1)).toMatchObject({ result: "After compaction." });
    // The request now starts from the summary; the most recent turn is kept verbatim after it.
    const sent = (sim.requests.at(-1)!.body as Line).messages as Line[];
    expect(JSON.stringify(sent[0])).toContain("The user asked a question; it was answered.");
    expect(JSON.stringify(sent)).not.toContain('"A question"');
  });
});
