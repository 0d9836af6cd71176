import { mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startModelSim, type ModelSim } from "@cairn/model-sim";
import { runCairn } from "../support/cli.ts";
import { useTempDirs } from "../support/use-temp-dirs.ts";
import { ageTranscript, read, text, toolResultsOf, transcriptFile, type Body } from "./pipeline-support.ts";

const tempDir = useTempDirs();

let sim: ModelSim;
let workspace: string;
let cairnHome: string;
let env: Record<string, string>;
const CLEARED = "[Old tool result cleared:";

beforeAll(async () => {
  sim = await startModelSim();
  workspace = await tempDir("time-mc-ws");
  cairnHome = await tempDir("time-mc-home");
  await mkdir(join(workspace, "src"));
  for (let file = 1; file <= 7; file++) await writeFile(join(workspace, "src", `f${file}.ts`), `export const value${file} = "${"v".repeat(400)}";\n`.repeat(5));
  env = { ANTHROPIC_BASE_URL: sim.url, ANTHROPIC_API_KEY: "test", CAIRN_HOME: cairnHome };
});
afterAll(async () => {
  await sim.close();
});

describe("cairn -p: time-based micro-compact", () => {
  it("keeps old tool results while the prompt cache is warm and clears them once it has expired", async () => {
    sim.setScenario({
      turns: [...[1, 2, 3, 4, 5, 6, 7].map((file) => read(`toolu_f${file}`, join(workspace, "src", `f${file}.ts`))), text("Read all seven.")],
    });
    const first = await runCairn(["-p", "Read the seven files", "--output-format", "json"], { cwd: workspace, env });
    expect(first.code).toBe(0);
    const sessionId = first.lines.at(-1)!.session_id as string;
    const transcript = await transcriptFile(cairnHome, sessionId);
    const intact = (body: Body) => [...toolResultsOf(body).values()].filter((content) => !content.startsWith(CLEARED)).length;

    // Right away: the cache is warm, every result is sent as it was.
    sim.setScenario({ turns: [text("Still here.")] });
    expect((await runCairn(["-p", "Anything else?", "--resume", sessionId], { cwd: workspace, env })).code).toBe(0);
    const warm = sim.requests.at(-1)!.body as Body;
    expect(toolResultsOf(warm).size).toBe(7);
    expect(intact(warm)).toBe(7);

    // Ten minutes idle, with a one-hour TTL setting: still warm.
    await ageTranscript(transcript, 10 * 60_000);
    sim.setScenario({ turns: [text("Yes.")] });
    const settings = JSON.stringify({ promptCacheTtlMinutes: 60 });
    expect((await runCairn(["-p", "Still there?", "--resume", sessionId, "--settings", settings], { cwd: workspace, env })).code).toBe(0);
    expect(intact(sim.requests.at(-1)!.body as Body)).toBe(7);

    // Ten minutes idle with the default five-minute TTL: the cache is gone, the results of all but the last five responses are cleared.
    await ageTranscript(transcript, 10 * 60_000);
    sim.setScenario({ turns: [text("Back.")] });
    const cold = await runCairn(["-p", "Back again", "--resume", sessionId, "--output-format", "stream-json", "--verbose"], { cwd: workspace, env });
    expect(cold.code).toBe(0);
    const results = toolResultsOf(sim.requests.at(-1)!.body as Body);
    // Ten responses so far (8 + 1 + 1): the calls of the first five (f1…f5) are cleared, f6 and f7 are kept.
    expect([...results.entries()].map(([id, content]) => [id, content.startsWith(CLEARED)])).toEqual([
      ["toolu_f1", true],
      ["toolu_f2", true],
      ["toolu_f3", true],
      ["toolu_f4", true],
      ["toolu_f5", true],
      ["toolu_f6", false],
      ["toolu_f7", false],
    ]);
    expect(results.get("toolu_f1")).toMatch(/Read \(.*f1\.ts\) returned [\d,]+ characters; the output was removed to save context\. Call the tool again/);
    expect(results.get("toolu_f7")).toContain("value7");
  });
});
