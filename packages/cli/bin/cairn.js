#!/usr/bin/env node
// Starts `cairn` from the bundle in dist/ (built by `npm run build`). The TypeScript sources run, through tsx, only
// when asked for explicitly with CAIRN_DEV=1 (while developing): what runs never depends on file times.
import { existsSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { loadBundle } from "./load-bundle.js";

const cliDir = join(dirname(fileURLToPath(import.meta.url)), "..");
const bundle = join(cliDir, "dist", "cairn.cjs");
const args = process.argv.slice(2);
const SUBCOMMANDS = new Set(["serve", "transcript", "worker", "rewind"]);

let main;
let saveCompileCache = () => undefined;
if (process.env.CAIRN_DEV === "1") {
  const { register } = await import("tsx/esm/api");
  register();
  ({ main } = await import("../src/main.ts"));
} else if (existsSync(bundle)) {
  const loaded = loadBundle(bundle, SUBCOMMANDS.has(args[0]) ? args[0] : "print");
  ({ main } = loaded.exports);
  saveCompileCache = loaded.saveCompileCache;
} else {
  process.stderr.write(
    `cairn: the built CLI (${bundle}) is missing. Build it with \`npm run build -w @cairn/cli\` (or \`npm run build\`) in the Cairn checkout,\n` +
      "or set CAIRN_DEV=1 to run the TypeScript sources (development only).\n",
  );
  process.exit(1);
}
const code = await main(args);
saveCompileCache();
// Let pending stdout writes drain before exiting.
process.stdout.write("", () => process.exit(code));
