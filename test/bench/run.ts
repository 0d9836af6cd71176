// Runs every `bench/*.bench.ts` (or those named on the command line) in its own process, so one
// benchmark's memory and warm caches do not colour another's figures. Each prints `BENCH <name> <value> <unit>`
// lines; after them comes a table of the targets with the measured value and whether it was met. A missed
// target does not fail the run (a shared machine's figures move with its load); a benchmark that crashes does.
import { spawn } from "node:child_process";
import { readdirSync, readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";
import { buildCliBundle } from "../support/cli-bundle.ts";
import { checkTargets, formatTargetTable, parseBenchLine, type BenchFigure } from "./targets.ts";

const here = dirname(fileURLToPath(import.meta.url));
const only = process.argv.slice(2);
const files = readdirSync(here)
  .filter((file) => file.endsWith(".bench.ts"))
  .filter((file) => only.length === 0 || only.some((name) => file.startsWith(name)))
  .sort();

// Benchmarks that spawn `cairn` measure its bundle, built once here from today's sources.
buildCliBundle();
const loadAverage = () => readFileSync("/proc/loadavg", "utf8").split(" ").slice(0, 3).join(" ");
const figures = new Map<string, BenchFigure>();
let failed = 0;
for (const file of files) {
  console.log(`# ${file} (load average ${loadAverage()})`);
  const started = Date.now();
  const code = await runOne(file);
  console.log(`# ${file} finished in ${((Date.now() - started) / 1000).toFixed(1)} s with exit code ${code} (load average ${loadAverage()})`);
  if (code !== 0) failed++;
}
console.log("\n# targets");
console.log(formatTargetTable(checkTargets(figures)));
process.exit(failed === 0 ? 0 : 1);

function runOne(file: string): Promise<number | null> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ["--import", "tsx", join(here, "run-one.ts"), join(here, file)], {
      stdio: ["ignore", "pipe", "inherit"],
      env: { ...process.env, NODE_ENV: "production" },
    });
    createInterface({ input: child.stdout }).on("line", (line) => {
      console.log(line);
      const figure = parseBenchLine(line);
      if (figure) figures.set(...figure);
    });
    child.once("error", reject);
    child.once("close", (code) => resolve(code));
  });
}
