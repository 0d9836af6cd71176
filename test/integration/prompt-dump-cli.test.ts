import { readdir, readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startModelSim, type ModelSim } from "@cairn/model-sim";
import { runCairn } from "../support/cli.ts";
import { useTempDirs } from "../support/use-temp-dirs.ts";

const tempDir = useTempDirs();

let sim: ModelSim;
let workspace: string;
const API_KEY = "sk-ant-dump-test-secret";

beforeAll(async () => {
  sim = await startModelSim();
  workspace = await tempDir("dump-ws");
  await writeFile(join(workspace, "notes.txt"), "remember the milk\n");
});
afterAll(async () => {
  await sim.close();
});

describe("cairn -p with CAIRN_DUMP_PROMPTS=1", () => {
  it("keeps the latest request body of the session and of its subagent, as the simulator received them, without the API key", async () => {
    const home = await tempDir("dump-home");
    sim.setScenario({
      turns: [
        { content: [{ type: "tool_use", id: "toolu_read", name: "Read", input: { file_path: join(workspace, "notes.txt") } }] },
        { content: [{ type: "tool_use", id: "toolu_agent", name: "Agent", input: { description: "Count", prompt: "Count the words in notes.txt" } }] },
        { match: { firstMessageIncludes: "Count the words" }, content: [{ type: "text", text: "Three words." }] },
        { content: [{ type: "text", text: "Done." }] },
      ],
    });
    const before = sim.requests.length;
    const env = { ANTHROPIC_BASE_URL: sim.url, ANTHROPIC_API_KEY: API_KEY, CAIRN_HOME: home, HOME: home, CAIRN_DUMP_PROMPTS: "1" };
    const run = await runCairn(["-p", "Read notes.txt", "--output-format", "json"], { cwd: workspace, env });
    expect(run.stderr).toBe("");
    expect(run.code).toBe(0);
    const sessionId = run.lines.at(-1)!.session_id as string;
    const requests = sim.requests.slice(before);
    expect(requests).toHaveLength(4);
    const files = await readdir(join(home, "debug"));
    expect(files).toHaveLength(2);
    expect(files).toContain(`${sessionId}.json`);
    const subagentFile = files.find((file) => file !== `${sessionId}.json`)!;
    expect(subagentFile).toMatch(new RegExp(`^${sessionId}\\.a[0-9a-f]{16}\\.json$`));
    const session = await readFile(join(home, "debug", `${sessionId}.json`), "utf8");
    const subagent = await readFile(join(home, "debug", subagentFile), "utf8");
    // Only the latest request of each conversation: the session's fourth, the subagent's only one.
    expect(JSON.parse(session)).toEqual(requests[3]!.body);
    expect(JSON.parse(subagent)).toEqual(requests[2]!.body);
    for (const text of [session, subagent]) expect(text).not.toContain(API_KEY);
    // The simulator saw the key; the dump did not.
    expect(JSON.stringify(requests[3]!.headers)).toContain(API_KEY);
  });

  it("writes nothing without the variable", async () => {
    const home = await tempDir("dump-off-home");
    sim.setScenario({ turns: [{ content: [{ type: "text", text: "Hi." }] }] });
    const run = await runCairn(["-p", "Hello"], {
      cwd: workspace,
      env: { ANTHROPIC_BASE_URL: sim.url, ANTHROPIC_API_KEY: API_KEY, CAIRN_HOME: home, HOME: home },
    });
    expect(run.code).toBe(0);
    expect(await readdir(home)).not.toContain("debug");
  });
});
