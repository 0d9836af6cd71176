// A 30-turn headless session (`cairn -p`, each turn one Read) against model-sim at full speed:
// whole-process wall and CPU time, and the client's per-turn overhead (end of a response to the next request).
import { execFileSync, spawn } from "node:child_process";
import { mkdir, readFile, readdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { startModelSim } from "@cairn/model-sim";
import { cairnBin, repoRoot, tempDir } from "../support/cli.ts";
import { median, percentile, report } from "./report.ts";

const TURNS = 30;

export default async function run(): Promise<void> {
  // Measure what users run: the esbuild bundle (`npm start` builds it), not the TypeScript sources through tsx.
  execFileSync(process.execPath, [join(repoRoot, "packages", "cli", "build.mjs")], { stdio: "inherit" });
  const workspace = await tempDir("bench-ws");
  const cairnHome = await tempDir("bench-home");
  await mkdir(join(workspace, "src"));
  await writeFile(join(workspace, "src", "a.ts"), "export const a = 1;\n".repeat(50));
  const sim = await startModelSim();
  try {
    const turns = Array.from({ length: TURNS }, (_, index) => ({
      content: [{ type: "tool_use" as const, id: `toolu_${index}`, name: "Read", input: { file_path: join(workspace, "src", "a.ts"), offset: 1, limit: 10 + index } }],
    }));
    // Warm-up run (first start compiles caches), then the measured run.
    const measured: Array<{ wallMs: number; cpuMs: number }> = [];
    for (let round = 0; round < 3; round++) {
      sim.setScenario({ turns: [...turns, { content: [{ type: "text", text: "done" }] }] });
      const result = await timedRun(["-p", "read it 30 times", "--output-format", "json"], workspace, { ANTHROPIC_BASE_URL: sim.url, ANTHROPIC_API_KEY: "bench", CAIRN_HOME: cairnHome });
      if (round > 0) measured.push(result);
    }
    const gaps = await turnGaps(cairnHome);
    report("cli30.wall_ms", median(measured.map((m) => m.wallMs)), "ms");
    report("cli30.cpu_ms", median(measured.map((m) => m.cpuMs)), "ms");
    report("cli30.turn_overhead_p50_ms", median(gaps), "ms");
    report("cli30.turn_overhead_p99_ms", percentile(gaps, 99), "ms");
    const startup = await timedRun(["--version"], workspace, { CAIRN_HOME: cairnHome });
    report("cli.version_wall_ms", startup.wallMs, "ms");
  } finally {
    await sim.close();
  }
}

/** Wall time, and user+system CPU of the process and its children, via bash's `times`. */
function timedRun(args: string[], cwd: string, env: Record<string, string>): Promise<{ wallMs: number; cpuMs: number }> {
  return new Promise((resolve, reject) => {
    const quoted = [process.execPath, cairnBin, ...args].map((arg) => `'${arg.replaceAll("'", "'\\''")}'`).join(" ");
    const started = performance.now();
    const child = spawn("bash", ["-c", `${quoted} >/dev/null 2>/tmp/cairn-bench-stderr; code=$?; times; exit $code`], {
      cwd,
      env: { PATH: process.env.PATH ?? "", HOME: process.env.HOME ?? "/root", CAIRN_FROM_BUNDLE: "1", ...env },
    });
    let out = "";
    child.stdout.on("data", (chunk: Buffer) => (out += chunk.toString()));
    child.on("close", (code) => {
      const wallMs = performance.now() - started;
      if (code !== 0) return reject(new Error(`cairn exited with ${code}`));
      // `times` prints the shell's own times, then its children's: "0m0.812s 0m0.143s".
      const lines = out.trim().split("\n");
      const seconds = [...(lines.at(-1) ?? "").matchAll(/(\d+)m([\d.]+)s/g)].map((match) => Number(match[1]) * 60 + Number(match[2]));
      resolve({ wallMs, cpuMs: ((seconds[0] ?? 0) + (seconds[1] ?? 0)) * 1000 });
    });
  });
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
