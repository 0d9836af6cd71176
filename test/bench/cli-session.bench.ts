// A 30-turn headless session (`cairn -p`, each turn one Read) against model-sim at full speed:
// whole-process wall and CPU time, and the client's per-turn overhead (end of a response to the next request).
// The reference, run in the same rounds: a bare SDK loop making the same 31 streamed requests (the
// conversation growing by each call and its result) and the same file reads, with nothing else.
import { execFileSync } from "node:child_process";
import { mkdir, readFile, readdir, writeFile } from "node:fs/promises";
import { createRequire } from "node:module";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { startModelSim } from "@cairn/model-sim";
import { cairnBin, repoRoot } from "../support/cli.ts";
import { createTempDirs } from "../support/temp-dirs.ts";
import { timedRun } from "./process-stats.ts";
import { median, percentile, report } from "./report.ts";

const TURNS = 30;

export default async function run(): Promise<void> {
  // Measure what users run: the esbuild bundle (`npm start` builds it), not the TypeScript sources through tsx.
  execFileSync(process.execPath, [join(repoRoot, "packages", "cli", "build.mjs")], { stdio: "inherit" });
  const temp = createTempDirs();
  const workspace = await temp.make("bench-ws");
  const cairnHome = await temp.make("bench-home");
  await mkdir(join(workspace, "src"));
  await writeFile(join(workspace, "src", "a.ts"), "export const a = 1;\n".repeat(50));
  const sim = await startModelSim();
  try {
    const turns = Array.from({ length: TURNS }, (_, index) => ({
      content: [
        { type: "tool_use" as const, id: `toolu_${index}`, name: "Read", input: { file_path: join(workspace, "src", "a.ts"), offset: 1, limit: 10 + index } },
      ],
    }));
    const bareLoop = join(await temp.make("bench-bare"), "bare-loop.mjs");
    await writeFile(bareLoop, bareLoopProgram());
    const env = { ANTHROPIC_BASE_URL: sim.url, ANTHROPIC_API_KEY: "bench", CAIRN_HOME: cairnHome };
    const script = { turns: [...turns, { content: [{ type: "text" as const, text: "done" }] }] };
    // A warm-up round (first start compiles caches), then measured rounds, Cairn and the bare loop interleaved.
    const measured: Array<{ wallMs: number; cpuMs: number }> = [];
    const bare: Array<{ wallMs: number; cpuMs: number }> = [];
    for (let round = 0; round < 4; round++) {
      sim.setScenario(script);
      const result = await timedRun([cairnBin, "-p", "read it 30 times", "--output-format", "json"], workspace, env);
      sim.setScenario(script);
      const reference = await timedRun([bareLoop, "read it 30 times"], workspace, env);
      if (sim.remainingTurns() !== 0) throw new Error("the bare loop did not make every request");
      if (round === 0) continue;
      measured.push(result);
      bare.push(reference);
    }
    const gaps = await turnGaps(cairnHome);
    report("cli30.wall_ms", median(measured.map((m) => m.wallMs)), "ms");
    report("cli30.cpu_ms", median(measured.map((m) => m.cpuMs)), "ms");
    report("cli30.bare_loop_wall_ms", median(bare.map((m) => m.wallMs)), "ms");
    report("cli30.bare_loop_cpu_ms", median(bare.map((m) => m.cpuMs)), "ms");
    report("cli30.wall_vs_bare_loop", median(measured.map((m) => m.wallMs)) / median(bare.map((m) => m.wallMs)), "x");
    report("cli30.cpu_vs_bare_loop", median(measured.map((m) => m.cpuMs)) / median(bare.map((m) => m.cpuMs)), "x");
    report("cli30.turn_overhead_p50_ms", median(gaps), "ms");
    report("cli30.turn_overhead_p99_ms", percentile(gaps, 99), "ms");
    const startup = await timedRun([cairnBin, "--version"], workspace, { CAIRN_HOME: cairnHome });
    report("cli.version_wall_ms", startup.wallMs, "ms");
  } finally {
    await sim.close();
    await temp.removeAll();
  }
}

/** From the newest transcript: time from each response's end to the next request's start. */
async function turnGaps(cairnHome: string): Promise<number[]> {
  const projects = join(cairnHome, "projects");
  const [project] = await readdir(projects);
  const dir = join(projects, project!);
  const files = await readdir(dir);
  let newest = "";
  let newestText = "";
  for (const file of files) {
    const text = await readFile(join(dir, file), "utf8");
    if (text.length > newestText.length || !newest) [newest, newestText] = [file, text];
  }
  const calls = newestText
    .trim()
    .split("\n")
    .map((line) => JSON.parse(line) as { type: string; modelCall?: { startedAt: number; endedAt: number } })
    .filter((line) => line.type === "assistant" && line.modelCall)
    .map((line) => line.modelCall!);
  return calls.slice(1).map((call, index) => call.startedAt - calls[index]!.endedAt);
}

/**
 * The reference loop: the SDK streams each response, the loop reads the file each Read call names
 * (numbered lines, as Read returns them) and sends the conversation back with the result.
 */
function bareLoopProgram(): string {
  const require = createRequire(join(repoRoot, "test", "package.json"));
  const sdk = pathToFileURL(require.resolve("@anthropic-ai/sdk")).href;
  return `import Anthropic from ${JSON.stringify(sdk)};
import { readFile } from "node:fs/promises";
const client = new Anthropic({ apiKey: process.env.ANTHROPIC_API_KEY, baseURL: process.env.ANTHROPIC_BASE_URL, maxRetries: 0 });
const tools = [{ name: "Read", description: "Reads a file", input_schema: { type: "object", properties: { file_path: { type: "string" }, offset: { type: "number" }, limit: { type: "number" } }, required: ["file_path"] } }];
const messages = [{ role: "user", content: process.argv[2] }];
for (let turn = 0; turn < 100; turn++) {
  const stream = await client.messages.create({ model: "bench", max_tokens: 4096, stream: true, system: "bench", tools, messages });
  const content = [];
  const json = new Map();
  for await (const event of stream) {
    if (event.type === "content_block_start") content[event.index] = { ...event.content_block };
    else if (event.type === "content_block_delta" && event.delta.type === "text_delta") content[event.index].text += event.delta.text;
    else if (event.type === "content_block_delta" && event.delta.type === "input_json_delta") json.set(event.index, (json.get(event.index) ?? "") + event.delta.partial_json);
    else if (event.type === "content_block_stop" && json.has(event.index)) content[event.index].input = JSON.parse(json.get(event.index) || "{}");
  }
  messages.push({ role: "assistant", content });
  const calls = content.filter((block) => block.type === "tool_use");
  if (calls.length === 0) break;
  const results = [];
  for (const call of calls) {
    const lines = (await readFile(call.input.file_path, "utf8")).split("\\n");
    const from = Math.max(0, (call.input.offset ?? 1) - 1);
    const shown = lines.slice(from, from + (call.input.limit ?? 2000)).map((line, index) => String(from + index + 1).padStart(6) + "\\t" + line);
    results.push({ type: "tool_result", tool_use_id: call.id, content: shown.join("\\n") });
  }
  messages.push({ role: "user", content: results });
}
process.stdout.write("done\\n", () => process.exit(0));
`;
}
