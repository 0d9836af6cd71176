// Child process for sessions.bench.ts: loads one transcript and reports time, CPU time and peak RSS as JSON.
// "baseline": the bare cost of reading the file — readline over a read stream, JSON.parse of every line.
// "load": Cairn's tolerant loader as a resume uses it (the index of the whole file, messages since the last compact boundary).
import { createReadStream } from "node:fs";
import { createInterface } from "node:readline";
import { loadTranscript } from "@cairn/core/node";

const [mode, path] = process.argv.slice(2);
if ((mode !== "baseline" && mode !== "load") || !path) throw new Error("usage: sessions.bench-child.ts baseline|load <file>");

const cpuBefore = process.cpuUsage();
const started = performance.now();
let count = 0;
if (mode === "baseline") {
  const lines = createInterface({ input: createReadStream(path, { encoding: "utf8" }), crlfDelay: Number.POSITIVE_INFINITY });
  for await (const line of lines) {
    if (line === "") continue;
    JSON.parse(line);
    count++;
  }
} else {
  const loaded = await loadTranscript(path, { scope: "since-last-compact" });
  count = loaded.messages.length;
  if (loaded.report.malformedLines > 0 || loaded.report.invalidMessages > 0) throw new Error(JSON.stringify(loaded.report));
}
const wallMs = performance.now() - started;
const cpu = process.cpuUsage(cpuBefore);
process.stdout.write(`${JSON.stringify({ mode, count, wallMs, cpuMs: (cpu.user + cpu.system) / 1000, maxRssMb: process.resourceUsage().maxRSS / 1024 })}\n`);
