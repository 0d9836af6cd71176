#!/usr/bin/env -S node --min-semi-space-size=16
// Starts `cairn` from the bundle in dist/ (built by `npm run build`). The TypeScript sources run, through tsx, only
// when asked for explicitly with CAIRN_DEV=1 (while developing): what runs never depends on file times.
// CommonJS (bin/package.json), so a start never sets up Node's ES module loader. The young generation starts at its
// full size (the flag above, taken when `cairn` is run as a program): a `cairn -p` run then allocates its start-up
// objects, nearly all long-lived, without a scavenge copying them again and again before the first request.
"use strict";
const { existsSync } = require("node:fs");
const { join } = require("node:path");
const { loadBundle } = require("./load-bundle.js");

const bundle = join(__dirname, "..", "dist", "cairn.cjs");
const args = process.argv.slice(2);
const SUBCOMMANDS = new Set(["serve", "transcript", "worker", "rewind"]);

async function start() {
  if (process.env.CAIRN_DEV === "1") {
    const { register } = await import("tsx/esm/api");
    register();
    const { main } = await import("../src/main.ts");
    return main(args);
  }
  if (!existsSync(bundle)) {
    process.stderr.write(
      `cairn: the built CLI (${bundle}) is missing. Build it with \`npm run build -w @cairn/cli\` (or \`npm run build\`) in the Cairn checkout,\n` +
        "or set CAIRN_DEV=1 to run the TypeScript sources (development only).\n",
    );
    return 1;
  }
  const loaded = loadBundle(bundle, SUBCOMMANDS.has(args[0]) ? args[0] : "print");
  const code = await loaded.exports.main(args);
  loaded.saveCompileCache();
  return code;
}

start().then((code) => {
  // Let pending stdout writes drain before exiting.
  process.stdout.write("", () => process.exit(code));
});
