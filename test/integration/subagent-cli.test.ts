import { mkdir, readdir, readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { projectDirName } from "@cairn/core/schema";
import { startModelSim, type ModelSim } from "@cairn/model-sim";
import { runCairn } from "../support/cli.ts";
import { useTempDirs } from "../support/use-temp-dirs.ts";

const tempDir = useTempDirs();

let sim: ModelSim;
let workspace: string;
let cairnHome: string;
let env: Record<string, string>;

type Line = Record<string, any>;
const text = (value: string) => ({ content: [{ type: "text" as const, text: value }] });
const agent = (id: string, prompt: string, extra: Record<string, unknown> = {}) => ({
  type: "tool_use" as const,
  id,
  name: "Agent",
  input: { description: `task ${id}`, prompt, ...extra },
});

beforeAll(async () => {
  sim = await startModelSim();
  workspace = await tempDir("subagent-ws");
  cairnHome = await tempDir("subagent-home");
  await mkdir(join(workspace, "src"));
  await writeFile(join(workspace, "src", "math.ts"), "export const add = (a: number, b: number) => a + b;\n");
  await mkdir(join(workspace, ".claude", "agents"), { recursive: true });
  await writeFile(
    join(workspace, ".claude", "agents", "reader.md"),
    "---\nname: reader\ndescription: Reads files and reports\ntools: Read, Glob\n---\nYou only read files and report what they contain.\n",
  );
  env = { ANTHROPIC_BASE_URL: sim.url, ANTHROPIC_API_KEY: "test", CAIRN_HOME: cairnHome };
});
afterAll(async () => {
  await sim.close();
});

async function subagentTranscripts(sessionId: string): Promise<Array<{ file: string; lines: Line[]; meta: Line }>> {
  const dir = join(cairnHome, "projects", projectDirName(workspace), sessionId, "subagents");
  const files = (await readdir(dir)).filter((name) => name.endsWith(".jsonl")).sort();
  return Promise.all(
    files.map(async (file) => ({
      file,
      lines: (await readFile(join(dir, file), "utf8"))
        .trim()
        .split("\n")
        .map((line) => JSON.parse(line) as Line),
      meta: JSON.parse(await readFile(join(dir, file.replace(/\.jsonl$/, ".meta.json")), "utf8")) as Line,
    })),
  );
}

const toolResults = (body: Line) =>
  body.messages.flatMap((message: Line) => (Array.isArray(message.content) ? message.content : [])).filter((block: Line) => block.type === "tool_result");

describe("cairn -p with subagents", () => {
  it("runs a subagent that makes two tool calls and returns its answer as the Agent result", async () => {
    sim.setScenario({
      turns: [
        { content: [agent("toolu_agent", "Find the TypeScript files in src and tell me what they export.", { subagent_type: "reader" })] },
        {
          content: [
            { type: "tool_use", id: "toolu_glob", name: "Glob", input: { pattern: "src/*.ts" } },
            { type: "tool_use", id: "toolu_read", name: "Read", input: { file_path: join(workspace, "src", "math.ts") } },
          ],
        },
        text("src/math.ts exports add(a, b)."),
        text("The reader agent says src/math.ts exports add."),
      ],
    });
    const run = await runCairn(["-p", "What does src export?", "--output-format", "stream-json", "--verbose"], { cwd: workspace, env });
    expect(run.stderr).toBe("");
    expect(run.code).toBe(0);
    const [parentFirst, subFirst, subSecond, parentLast] = sim.requests.slice(-4).map((request) => request.body as Line);
    expect(parentFirst!.tools.map((tool: Line) => tool.name)).toContain("Agent");
    expect(JSON.stringify(parentFirst!.tools.find((tool: Line) => tool.name === "Agent").description)).toContain("reader: Reads files and reports");

    // The subagent starts fresh: its prompt only, its own system prompt, only the tools its definition names.
    expect(subFirst!.messages).toHaveLength(1);
    expect(JSON.stringify(subFirst!.messages[0].content)).toContain("Find the TypeScript files in src");
    expect(subFirst!.system[0].text).toBe("You only read files and report what they contain.");
    expect(subFirst!.tools.map((tool: Line) => tool.name)).toEqual(["Read", "Glob"]);
    const subResults = toolResults(subSecond!);
    expect(subResults.map((block: Line) => block.tool_use_id).sort()).toEqual(["toolu_glob", "toolu_read"]);
    expect(JSON.stringify(subResults)).toContain("export const add");

    expect(toolResults(parentLast!)).toEqual([expect.objectContaining({ tool_use_id: "toolu_agent", content: "src/math.ts exports add(a, b)." })]);
    const result = run.lines.at(-1)!;
    expect(result).toMatchObject({ subtype: "success", result: "The reader agent says src/math.ts exports add.", num_turns: 2 });

    // Stream-json carries the subagent's messages tagged with the Agent call, as Claude Code does.
    const tagged = run.lines.filter((line) => line.parent_tool_use_id === "toolu_agent");
    expect(tagged.map((line) => line.type)).toEqual(["user", "assistant", "user", "user", "assistant"]);

    // Its transcript: <projectDir>/<sessionId>/subagents/agent-<id>.jsonl, every line a sidechain line with the agent id.
    const [sidechain] = await subagentTranscripts(String(result.session_id));
    const conversation = sidechain!.lines.filter((line) => line.type === "user" || line.type === "assistant");
    const agentId = sidechain!.file.replace(/^agent-|\.jsonl$/g, "");
    expect(conversation.length).toBe(5);
    expect(conversation.every((line) => line.isSidechain === true && line.agentId === agentId && line.sessionId === result.session_id)).toBe(true);
    expect(conversation[0]!.parentUuid).toBeNull();
    expect(sidechain!.meta).toMatchObject({ agentType: "reader" });
    const parentToolResult = run.lines.find((line) => line.type === "user" && line.parent_tool_use_id === null && line.tool_use_result);
    expect(parentToolResult!.tool_use_result).toMatchObject({ status: "completed", agentId, agentType: "reader", totalToolUseCount: 2 });
  });

  it("runs two subagents in parallel", async () => {
    const stall = { kind: "stall" as const, afterEvents: 1, ms: 1_500 };
    sim.setScenario({
      turns: [
        { content: [agent("toolu_one", "First task: say one."), agent("toolu_two", "Second task: say two.")] },
        { ...text("answer from a subagent"), faults: [stall] },
        { ...text("answer from a subagent"), faults: [stall] },
        text("Both agents answered."),
      ],
    });
    const run = await runCairn(["-p", "Do two things at once", "--output-format", "json"], { cwd: workspace, env });
    expect(run.code).toBe(0);
    const requests = sim.requests.slice(-4);
    const [subA, subB] = [requests[1]!, requests[2]!];
    // Each subagent's response is held for 1.5 s; run one after the other, the second request would come after that.
    expect(Math.abs(subB.receivedAt - subA.receivedAt)).toBeLessThan(1_000);
    const parentLast = requests[3]!.body as Line;
    expect(
      toolResults(parentLast)
        .map((block: Line) => [block.tool_use_id, block.content])
        .sort(),
    ).toEqual([
      ["toolu_one", "answer from a subagent"],
      ["toolu_two", "answer from a subagent"],
    ]);
    const transcripts = await subagentTranscripts(String(run.lines.at(-1)!.session_id));
    expect(transcripts).toHaveLength(2);
    const spans = transcripts.map(({ lines }) => {
      const times = lines.filter((line) => line.type === "user" || line.type === "assistant").map((line) => Date.parse(line.timestamp));
      return { start: Math.min(...times), end: Math.max(...times) };
    });
    expect(spans[0]!.start < spans[1]!.end && spans[1]!.start < spans[0]!.end).toBe(true);
    expect(run.lines.at(-1)).toMatchObject({ subtype: "success", result: "Both agents answered." });
  });
});
