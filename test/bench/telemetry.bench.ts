// Telemetry on versus off on the 30-turn headless session (`cairn -p`, each turn one Read) against
// model-sim: whole-process wall and CPU time of the built bundle, exporting over OTLP/HTTP (protobuf)
// to a local receiver that accepts everything. Target: on is at most 5 % slower.
import { execFileSync } from "node:child_process";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { startModelSim } from "@cairn/model-sim";
import { cairnBin, repoRoot } from "../support/cli.ts";
import { createTempDirs } from "../support/temp-dirs.ts";
import { timedRun } from "./process-stats.ts";
import { median, report } from "./report.ts";

const TURNS = 30;
const ROUNDS = 5;

export default async function run(): Promise<void> {
  execFileSync(process.execPath, [join(repoRoot, "packages", "cli", "build.mjs")], { stdio: "inherit" });
  const temp = createTempDirs();
  const workspace = await temp.make("bench-otel-ws");
  const cairnHome = await temp.make("bench-otel-home");
  await mkdir(join(workspace, "src"));
  await writeFile(join(workspace, "src", "a.ts"), "export const a = 1;\n".repeat(50));
  let exports = 0;
  const receiver = createServer((request, response) => {
    request.resume();
    request.on("end", () => {
      exports++;
      response.writeHead(200, { "content-type": "application/x-protobuf" });
      response.end();
    });
  });
  await new Promise<void>((resolve) => receiver.listen(0, "127.0.0.1", resolve));
  const sim = await startModelSim();
  try {
    const turns = Array.from({ length: TURNS }, (_, index) => ({
      content: [
        { type: "tool_use" as const, id: `toolu_${index}`, name: "Read", input: { file_path: join(workspace, "src", "a.ts"), offset: 1, limit: 10 + index } },
      ],
    }));
    const script = { turns: [...turns, { content: [{ type: "text" as const, text: "done" }] }] };
    const base = { ANTHROPIC_BASE_URL: sim.url, ANTHROPIC_API_KEY: "bench", CAIRN_HOME: cairnHome };
    const telemetry = {
      ...base,
      CAIRN_ENABLE_TELEMETRY: "1",
      OTEL_EXPORTER_OTLP_PROTOCOL: "http/protobuf",
      OTEL_EXPORTER_OTLP_ENDPOINT: `http://127.0.0.1:${(receiver.address() as AddressInfo).port}`,
    };
    const off: Array<{ wallMs: number; cpuMs: number }> = [];
    const on: Array<{ wallMs: number; cpuMs: number }> = [];
    // A warm-up round, then measured rounds with the two settings interleaved.
    for (let round = 0; round <= ROUNDS; round++) {
      sim.setScenario(script);
      const plain = await timedRun([cairnBin, "-p", "read it 30 times", "--output-format", "json"], workspace, base, "cairn-bench-otel-stderr");
      sim.setScenario(script);
      const exported = await timedRun([cairnBin, "-p", "read it 30 times", "--output-format", "json"], workspace, telemetry, "cairn-bench-otel-stderr");
      if (round === 0) continue;
      off.push(plain);
      on.push(exported);
    }
    if (exports === 0) throw new Error("telemetry was on but nothing reached the receiver");
    const offWall = median(off.map((m) => m.wallMs));
    const onWall = median(on.map((m) => m.wallMs));
    report("telemetry.off_wall_ms", offWall, "ms");
    report("telemetry.on_wall_ms", onWall, "ms");
    report("telemetry.off_cpu_ms", median(off.map((m) => m.cpuMs)), "ms");
    report("telemetry.on_cpu_ms", median(on.map((m) => m.cpuMs)), "ms");
    report("telemetry.on_vs_off_wall", onWall / offWall, "x");
    report("telemetry.on_vs_off_cpu", median(on.map((m) => m.cpuMs)) / median(off.map((m) => m.cpuMs)), "x");
  } finally {
    await sim.close();
    await new Promise((resolve) => receiver.close(resolve));
    await temp.removeAll();
  }
}
