// Runs every `bench/*.bench.ts` (or those named on the command line) in its own process, so one
// benchmark's memory and warm caches do not colour another's figures. Each prints `BENCH <name> <value> <unit>` lines.
import { spawnSync } from "node:child_process";
import { readdirSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const here = dirname(fileURLToPath(import.meta.url));
const only = process.argv.slice(2);
const files = readdirSync(here)
  .filter((file) => file.endsWith(".bench.ts"))
  .filter((file) => only.length === 0 || only.some((name) => file.startsWith(name)))
  .sort();

let failed = 0;
for (const file of files) {
  console.log(`# ${file}`);
  const started = Date.now();
  const result = spawnSync(process.execPath, ["--import", "tsx", join(here, "run-one.ts"), join(here, file)], {
    stdio: "inherit",
    env: { ...process.env, NODE_ENV: "production" },
  });
  console.log(`# ${file} finished in ${((Date.now() - started) / 1000).toFixed(1)} s with exit code ${result.status}`);
  if (result.status !== 0) failed++;
}
process.exit(failed === 0 ? 0 : 1);
