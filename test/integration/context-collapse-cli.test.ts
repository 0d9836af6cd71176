import { readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startModelSim, type ModelSim } from "@cairn/model-sim";
import { runCairn } from "../support/cli.ts";
import { useTempDirs } from "../support/use-temp-dirs.ts";
import { read, text, toolResultsOf, transcriptFile, type Body } from "./pipeline-support.ts";

const tempDir = useTempDirs();

let sim: ModelSim;
let workspace: string;
let cairnHome: string;
let env: Record<string, string>;
const COLLAPSED = "[Collapsed to save context:";
const settings = JSON.stringify({ contextCollapse: true });
const tooLong = { kind: "http" as const, status: 400, message: "prompt is too long: 210000 tokens > 200000 maximum" };

beforeAll(async () => {
  sim = await startModelSim();
  workspace = await tempDir("collapse-ws");
  cairnHome = await tempDir("collapse-home");
  // About 550 tokens per Read result: too small for snip, so only collapse changes what is sent.
  for (let file = 1; file <= 6; file++)
    await writeFile(join(workspace, `f${file}.ts`), `export const value${file} = "${"v".repeat(70)}"; // ${file}\n`.repeat(20));
  // A 10,000-token window: auto-compaction at 6,500 tokens, collapses staged from 5,525 and committed from 6,175.
  env = { ANTHROPIC_BASE_URL: sim.url, ANTHROPIC_API_KEY: "test", CAIRN_HOME: cairnHome, CAIRN_CONTEXT_WINDOW: "10000" };
});
afterAll(async () => {
  await sim.close();
});

/** Six Reads; the sixth response says `lastInput` tokens were sent. */
const sixReads = (lastInput: number) =>
  [1, 2, 3, 4, 5, 6].map((file) => ({
    ...read(`toolu_${file}`, join(workspace, `f${file}.ts`)),
    usage: { input_tokens: file === 6 ? lastInput : 800 * file, output_tokens: 20 },
  }));

describe("cairn -p: context collapse", () => {
  it("collapses the older reads into a summary once the context is nearly full, with no compaction", async () => {
    const start = sim.requests.length;
    sim.setScenario({ turns: [...sixReads(5_800), text("Read them all.")] });
    const run = await runCairn(["-p", "Read f1 to f6", "--settings", settings, "--output-format", "json"], { cwd: workspace, env });
    expect(run.code).toBe(0);
    const bodies = sim.requests.slice(start).map((request) => request.body as Body);
    // Seven requests of the loop, no summary request.
    expect(bodies).toHaveLength(7);
    expect(bodies.every((body) => body.tools !== undefined)).toBe(true);
    expect(JSON.stringify(bodies[5]!.messages)).not.toContain(COLLAPSED);
    const last = bodies[6]!;
    const sent = JSON.stringify(last.messages);
    expect(sent).toContain(`${COLLAPSED} 3 earlier responses`);
    expect(sent).toMatch(/- Read \([^)]*f1\.ts\) returned [\d,]+ characters/);
    // Rounds 1–3 are gone from the request; the last three reads are sent whole.
    expect([...toolResultsOf(last).keys()]).toEqual(["toolu_4", "toolu_5", "toolu_6"]);
    expect(toolResultsOf(last).get("toolu_6")).toContain("// 6");
    // The transcript keeps every original result.
    const transcript = await readFile(await transcriptFile(cairnHome, run.lines.at(-1)!.session_id as string), "utf8");
    expect(transcript).not.toContain(COLLAPSED);
    expect(transcript).toContain("toolu_1");
  });

  it("on a prompt-too-long answer drains the staged collapses and retries, before any compaction", async () => {
    const start = sim.requests.length;
    sim.setScenario({ turns: [...sixReads(5_300), { ...text("Read them all."), faults: [tooLong] }] });
    const run = await runCairn(["-p", "Read f1 to f6", "--settings", settings, "--output-format", "json"], { cwd: workspace, env });
    expect(run.code).toBe(0);
    expect(run.lines.at(-1)).toMatchObject({ type: "result", is_error: false, result: "Read them all." });
    const bodies = sim.requests.slice(start).map((request) => request.body as Body);
    // Six reads, the refused request (staged collapses not yet sent), and its retry with them committed; no summary request.
    expect(bodies).toHaveLength(8);
    expect(bodies.every((body) => body.tools !== undefined)).toBe(true);
    expect(JSON.stringify(bodies[6]!.messages)).not.toContain(COLLAPSED);
    expect([...toolResultsOf(bodies[6]!).keys()]).toHaveLength(6);
    expect(JSON.stringify(bodies[7]!.messages)).toContain(COLLAPSED);
    expect([...toolResultsOf(bodies[7]!).keys()]).toEqual(["toolu_4", "toolu_5", "toolu_6"]);
  });

  it("is off without the setting", async () => {
    const start = sim.requests.length;
    sim.setScenario({ turns: [...sixReads(5_800), text("Read them all.")] });
    expect((await runCairn(["-p", "Read f1 to f6"], { cwd: workspace, env })).code).toBe(0);
    const last = sim.requests.at(-1)!.body as Body;
    expect(sim.requests.length - start).toBe(7);
    expect(JSON.stringify(last.messages)).not.toContain(COLLAPSED);
    expect([...toolResultsOf(last).keys()]).toHaveLength(6);
  });
});
