#!/usr/bin/env node
// Starts `cairn`: from the bundle in dist/ when it is newer than every source file it was built from,
// otherwise from the TypeScript sources through tsx (no build step needed while developing).
import { existsSync, readFileSync, statSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

const cliDir = join(dirname(fileURLToPath(import.meta.url)), "..");
const bundle = join(cliDir, "dist", "cairn.mjs");

/** The bundle is fresh when none of the sources it was built from (listed by the build) changed since. */
function bundleIsFresh() {
  if (process.env.CAIRN_FROM_SOURCE === "1" || !existsSync(bundle)) return false;
  // Benchmarks build the bundle and then measure it, even while sources are being edited.
  if (process.env.CAIRN_FROM_BUNDLE === "1") return true;
  const built = statSync(bundle).mtimeMs;
  try {
    const sources = JSON.parse(readFileSync(join(cliDir, "dist", "sources.json"), "utf8"));
    return sources.every((source) => statSync(join(cliDir, source)).mtimeMs <= built);
  } catch {
    // No list (an older build), or a source is gone: build again or run from source.
    return false;
  }
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
