// Runs the repository checks, then every workspace's tests one package at a time (the machine has two cores), keeps
// going after a failure so one run reports everything, and ends with one plain summary line:
// "N passed, N failed, N skipped, N todo". A skipped or todo test fails the run: a test that does not run proves nothing.
// The steps run with a temporary folder (TMPDIR) of this run's own, so whatever the tests leave in it is theirs, even
// with other runs on the machine; it is listed at the end, then removed.
import { spawn } from "node:child_process";
import { chmodSync, mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describeLeftovers } from "./temp-leftovers.mjs";
import { countTests } from "./test-counts.mjs";

const steps = [
  ["lint: Biome rules and import boundaries, paths outside the repository, unused code (knip)", ["npm", "run", "lint"]],
  ["format check (Biome)", ["npm", "run", "format:check"]],
  ["script tests", ["node", "--test", "scripts/"]],
  ["typecheck", ["npx", "turbo", "run", "typecheck", "--concurrency=2", "--output-logs=errors-only"]],
  ["unit and integration tests", ["npx", "turbo", "run", "test", "--concurrency=1", "--continue"]],
];
if (!process.argv.includes("--no-e2e")) steps.push(["end-to-end tests", ["npm", "run", "test:e2e", "--if-present"]]);

const runTemp = mkdtempSync(join(tmpdir(), "cairn-test-run-"));
// Open like /tmp itself: the private PostgreSQL of the distributed tests runs as the postgres user under root.
chmodSync(runTemp, 0o1777);
const totals = { passed: 0, failed: 0, skipped: 0, todo: 0 };
const failedSteps = [];
for (const [name, command] of steps) {
  console.log(`\n=== ${name}: ${command.join(" ")}`);
  const output = await run(command);
  const counts = countTests(output.text);
  for (const key of Object.keys(totals)) totals[key] += counts[key];
  if (output.exitCode !== 0) failedSteps.push(name);
}
const leftovers = readdirSync(runTemp);
rmSync(runTemp, { recursive: true, force: true });
const notRun = totals.skipped + totals.todo;
console.log(`\n${failedSteps.length ? `Failed steps: ${failedSteps.join(", ")}` : "All steps succeeded."}`);
if (leftovers.length > 0) console.log(`The tests left ${leftovers.length} temporary entries behind (now removed): ${describeLeftovers(leftovers)}.`);
if (notRun > 0) console.log(`${notRun} test(s) skipped or marked todo: remove the .skip/.todo or the condition that skips them.`);
console.log(`${totals.passed} passed, ${totals.failed} failed, ${totals.skipped} skipped, ${totals.todo} todo`);
process.exit(failedSteps.length === 0 && totals.failed === 0 && notRun === 0 ? 0 : 1);

function run(command) {
  return new Promise((resolve) => {
    const child = spawn(command[0], command.slice(1), { stdio: ["ignore", "pipe", "pipe"], env: { ...process.env, TMPDIR: runTemp } });
    let output = "";
    const forward = (stream) => (chunk) => {
      stream.write(chunk);
      // Strip colour codes so the counts can be read back.
      output += chunk.toString().replace(/\x1b\[[0-9;]*m/g, "");
    };
    child.stdout.on("data", forward(process.stdout));
    child.stderr.on("data", forward(process.stderr));
    child.on("close", (code) => resolve({ text: output, exitCode: code ?? 1 }));
  });
}
