// Runs every workspace's tests one package at a time (the machine has two cores), keeps going after a
// failure so one run reports everything, and ends with one plain summary line: "N passed, N failed".
import { spawn } from "node:child_process";

const steps = [
  ["typecheck", ["npx", "turbo", "run", "typecheck", "--concurrency=2", "--output-logs=errors-only"]],
  ["unit and integration tests", ["npx", "turbo", "run", "test", "--concurrency=1", "--continue"]],
];
if (!process.argv.includes("--no-e2e")) steps.push(["end-to-end tests", ["npm", "run", "test:e2e", "--if-present"]]);

let passed = 0;
let failed = 0;
let failedSteps = [];
for (const [name, command] of steps) {
  console.log(`\n=== ${name}: ${command.join(" ")}`);
  const output = await run(command);
  for (const match of output.matchAll(/Tests\s+(?:(\d+) failed\s*\|\s*)?(\d+) passed/g)) {
    failed += Number(match[1] ?? 0);
    passed += Number(match[2]);
  }
  for (const match of output.matchAll(/Tests\s+(\d+) failed\s*\((\d+)\)/g)) failed += Number(match[1]);
  // Playwright: "12 passed (41.2s)", "2 failed".
  for (const match of output.matchAll(/(\d+) passed \([\d.]+(?:ms|s|m|h)\)/g)) passed += Number(match[1]);
  for (const match of output.matchAll(/(\d+) failed\s*$/gm)) failed += Number(match[1]);
  if (output.exitCode !== 0) failedSteps.push(name);
}
console.log(`\n${failedSteps.length ? `Failed steps: ${failedSteps.join(", ")}` : "All steps succeeded."}`);
console.log(`${passed} passed, ${failed} failed`);
process.exit(failedSteps.length === 0 && failed === 0 ? 0 : 1);

function run(command) {
  return new Promise((resolve) => {
    const child = spawn(command[0], command.slice(1), { stdio: ["ignore", "pipe", "pipe"], env: process.env });
    let output = "";
    const forward = (stream) => (chunk) => {
      stream.write(chunk);
      // Strip colour codes so the counts can be read back.
      output += chunk.toString().replace(/\x1b\[[0-9;]*m/g, "");
    };
    child.stdout.on("data", forward(process.stdout));
    child.stderr.on("data", forward(process.stderr));
    child.on("close", (code) => {
      const result = Object.assign(new String(output), { exitCode: code ?? 1 });
      resolve(result);
    });
  });
}
