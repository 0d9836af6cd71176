// Cold start of `cairn -p` with one text turn against model-sim: how long after the process starts its
// first request leaves, and how long the whole run takes. A TCP tap in front of the simulator stamps
// the moment the request's first bytes arrive and reads the child's CPU time from /proc right then,
// so the figures come with the CPU the process had used (the machine is shared; CPU is what we own).
// References measured in the same rounds: `node -e 0`, and a bare SDK program sending the same request.
// `cairn` runs as a user runs it, as a program (its `#!` line starts node). The clock
// starts before the process is spawned, and the first request counts when its first bytes reach the tap.
import { execFileSync, spawn } from "node:child_process";
import { readFileSync } from "node:fs";
import { writeFile } from "node:fs/promises";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { pathToFileURL } from "node:url";
import { startModelSim, type ModelSim } from "@cairn/model-sim";
import { cairnBin, repoRoot } from "../support/cli.ts";
import { createTempDirs } from "../support/temp-dirs.ts";
import { median, report } from "./report.ts";
import { TcpTap } from "./tcp-tap.ts";

const ROUNDS = 7;
const WARMUP = 2;

type Run = { wallMs: number; cpuMs: number; firstRequestMs: number | null; firstRequestCpuMs: number | null };

export default async function run(): Promise<void> {
  execFileSync(process.execPath, [join(repoRoot, "packages", "cli", "build.mjs")], { stdio: "inherit" });
  const temp = createTempDirs();
  const workspace = await temp.make("bench-cold-ws");
  const cairnHome = await temp.make("bench-cold-home");
  const bareScript = join(await temp.make("bench-cold-bare"), "bare-sdk.mjs");
  await writeFile(bareScript, bareSdkProgram());
  const sim = await startModelSim();
  const tap = await RequestTap.start(sim);
  const env = { ANTHROPIC_BASE_URL: tap.url, ANTHROPIC_API_KEY: "bench", CAIRN_HOME: cairnHome };
  const turn = { turns: [{ content: [{ type: "text" as const, text: "hello from the simulator" }] }] };
  // CAIRN_BENCH_COLD_BASELINE: another build's `cairn` program, run in the same rounds (an A/B on a shared machine).
  const baselineBin = process.env.CAIRN_BENCH_COLD_BASELINE;
  const figures = { cairn: [] as Run[], baseline: [] as Run[], bare: [] as Run[], node: [] as Run[] };
  try {
    // Interleaved rounds: whatever else the machine does hits all three alike.
    for (let round = 0; round < WARMUP + ROUNDS; round++) {
      sim.setScenario(turn);
      const cairn = await timed(tap, cairnBin, ["-p", "say hello"], workspace, env);
      sim.setScenario(turn);
      const baseline = baselineBin ? await timed(tap, baselineBin, ["-p", "say hello"], workspace, env) : undefined;
      sim.setScenario(turn);
      const bare = await timed(tap, process.execPath, [bareScript], workspace, env);
      const node = await timed(tap, process.execPath, ["-e", "0"], workspace, env);
      if (round < WARMUP) continue;
      figures.cairn.push(cairn);
      if (baseline) figures.baseline.push(baseline);
      figures.bare.push(bare);
      figures.node.push(node);
    }
  } finally {
    await tap.close();
    await sim.close();
    await temp.removeAll();
  }
  const pick = (runs: Run[], key: keyof Run) => median(runs.map((run) => run[key] ?? Number.NaN));
  report("cold.first_request_ms", pick(figures.cairn, "firstRequestMs"), "ms");
  report("cold.first_request_cpu_ms", pick(figures.cairn, "firstRequestCpuMs"), "ms");
  report("cold.one_turn_wall_ms", pick(figures.cairn, "wallMs"), "ms");
  report("cold.one_turn_cpu_ms", pick(figures.cairn, "cpuMs"), "ms");
  if (baselineBin) {
    report("cold.baseline_first_request_ms", pick(figures.baseline, "firstRequestMs"), "ms");
    report("cold.baseline_first_request_cpu_ms", pick(figures.baseline, "firstRequestCpuMs"), "ms");
    report("cold.baseline_one_turn_wall_ms", pick(figures.baseline, "wallMs"), "ms");
  }
  report("cold.bare_sdk_first_request_ms", pick(figures.bare, "firstRequestMs"), "ms");
  report("cold.bare_sdk_first_request_cpu_ms", pick(figures.bare, "firstRequestCpuMs"), "ms");
  report("cold.bare_sdk_one_turn_wall_ms", pick(figures.bare, "wallMs"), "ms");
  report("cold.bare_sdk_one_turn_cpu_ms", pick(figures.bare, "cpuMs"), "ms");
  report("cold.node_empty_wall_ms", pick(figures.node, "wallMs"), "ms");
  report("cold.node_empty_cpu_ms", pick(figures.node, "cpuMs"), "ms");
}

/** Runs `program` with `args`; wall time from spawn to exit, CPU of the process (user + system, from /proc at its end). */
function timed(tap: RequestTap, program: string, args: string[], cwd: string, env: Record<string, string>): Promise<Run> {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const child = spawn(program, args, {
      cwd,
      // `cairn`'s `#!/usr/bin/env node` finds this very node first.
      env: { PATH: `${dirname(process.execPath)}:${process.env.PATH ?? ""}`, HOME: process.env.HOME ?? "/root", ...env },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let stderr = "";
    child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
    child.stdout.resume();
    // One child at a time: the growth of our reaped children's CPU over its life is its CPU.
    const childrenBefore = reapedChildrenCpuMs();
    tap.expect(child.pid!, started);
    child.once("error", reject);
    child.once("exit", (code) => {
      const wallMs = performance.now() - started;
      const first = tap.take(child.pid!);
      if (code !== 0) return reject(new Error(`${program} ${args.join(" ")} exited with ${code}: ${stderr}`));
      resolve({ wallMs, cpuMs: reapedChildrenCpuMs() - childrenBefore, firstRequestMs: first?.atMs ?? null, firstRequestCpuMs: first?.cpuMs ?? null });
    });
  });
}

/** User + system CPU of a live process (clock ticks of 10 ms), or undefined once it is gone. */
function processCpuMs(pid: number | undefined): number | undefined {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]!.split(" ");
    return (Number(fields[11]) + Number(fields[12])) * 10;
  } catch {
    return undefined;
  }
}

/** User + system CPU of this process's children that have exited and been waited for. */
function reapedChildrenCpuMs(): number {
  const fields = readFileSync("/proc/self/stat", "utf8").split(") ")[1]!.split(" ");
  return (Number(fields[13]) + Number(fields[14])) * 10;
}

/** The reference: what any program that sends this request must do at least. */
function bareSdkProgram(): string {
  const require = createRequire(join(repoRoot, "test", "package.json"));
  const sdk = pathToFileURL(require.resolve("@anthropic-ai/sdk")).href;
  return `import Anthropic from ${JSON.stringify(sdk)};
const client = new Anthropic({ apiKey: process.env.ANTHROPIC_API_KEY, baseURL: process.env.ANTHROPIC_BASE_URL, maxRetries: 0 });
const stream = await client.messages.create({ model: "bench", max_tokens: 1024, stream: true, system: "bench", messages: [{ role: "user", content: "say hello" }] });
let text = "";
for await (const event of stream) if (event.type === "content_block_delta" && event.delta.type === "text_delta") text += event.delta.text;
process.stdout.write(text + "\\n", () => process.exit(0));
`;
}

/** A TCP pass-through in front of the simulator that notes, per client process, when its first request arrived. */
class RequestTap {
  private readonly waiting = new Map<number, number>();
  private readonly seen = new Map<number, { atMs: number; cpuMs: number | null }>();
  private tap: TcpTap | undefined;

  get url(): string {
    return this.tap?.url ?? "";
  }

  /** One child runs at a time: the first request after `expect` is its. */
  expect(pid: number, startedAt: number): void {
    this.waiting.set(pid, startedAt);
  }

  take(pid: number): { atMs: number; cpuMs: number | null } | undefined {
    this.waiting.delete(pid);
    const first = this.seen.get(pid);
    this.seen.delete(pid);
    return first;
  }

  private noteFirstRequest(at: number): void {
    for (const [pid, startedAt] of this.waiting) {
      if (this.seen.has(pid)) continue;
      this.seen.set(pid, { atMs: at - startedAt, cpuMs: processCpuMs(pid) ?? null });
    }
  }

  static async start(sim: ModelSim): Promise<RequestTap> {
    const requests = new RequestTap();
    requests.tap = await TcpTap.start(sim.url, () => {
      let first = true;
      return {
        fromClient: () => {
          if (first) requests.noteFirstRequest(performance.now());
          first = false;
        },
      };
    });
    return requests;
  }

  async close(): Promise<void> {
    await this.tap?.close();
  }
}
