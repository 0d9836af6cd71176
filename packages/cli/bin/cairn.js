#!/usr/bin/env node
// Starts `cairn`: from the bundle in dist/ when it is newer than every source file it was built from,
// otherwise from the TypeScript sources through tsx (no build step needed while developing).
import { existsSync, readdirSync, statSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

const cliDir = join(dirname(fileURLToPath(import.meta.url)), "..");
const bundle = join(cliDir, "dist", "cairn.mjs");
const packagesDir = join(cliDir, "..");

function newestSource(dir, newest = 0) {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    if (entry.name === "node_modules" || entry.name.startsWith(".")) continue;
    const path = join(dir, entry.name);
    if (entry.isDirectory()) newest = newestSource(path, newest);
    else if (entry.name.endsWith(".ts")) newest = Math.max(newest, statSync(path).mtimeMs);
  }
  return newest;
}

function bundleIsFresh() {
  if (process.env.CAIRN_FROM_SOURCE === "1" || !existsSync(bundle)) return false;
  // Benchmarks build the bundle and then measure it, even while sources are being edited.
  if (process.env.CAIRN_FROM_BUNDLE === "1") return true;
  const built = statSync(bundle).mtimeMs;
  return ["core", "worker", "api", "model-sim", "cli"].every((name) => {
    const src = join(packagesDir, name, "src");
    return !existsSync(src) || newestSource(src) <= built;
  });
}

let main;
if (bundleIsFresh()) {
  ({ main } = await import(pathToFileURL(bundle).href));
} else {
  const { register } = await import("tsx/esm/api");
  register();
  ({ main } = await import("../src/main.ts"));
}
const code = await main(process.argv.slice(2));
// Let pending stdout writes drain before exiting.
process.stdout.write("", () => process.exit(code));
