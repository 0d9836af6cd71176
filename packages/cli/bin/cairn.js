#!/usr/bin/env node
// Starts `cairn` from the bundle in dist/ (built by `npm run build`). The TypeScript sources run, through tsx, only
// when asked for explicitly with CAIRN_DEV=1 (while developing): what runs never depends on file times.
// CommonJS (bin/package.json), so a start never sets up Node's ES module loader. No V8 flags on the #! line: any
// flag makes V8 reject the code cache Node ships for its own modules (fetch's undici and ~90 more would compile from
// source at every start).
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
  const print = !SUBCOMMANDS.has(args[0]) && (args.includes("-p") || args.includes("--print"));
  if (print) oneShotV8Flags();
  // The code cache is per kind of start: each compiles other functions, and V8 takes a cache only under the flags
  // it was made with.
  const kind = SUBCOMMANDS.has(args[0]) ? args[0] : print ? "print" : "other";
  const loaded = loadBundle(bundle, kind);
  const code = await loaded.exports.main(args);
  loaded.saveCompileCache();
  return code;
}

/**
 * V8 flags for a one-shot `cairn -p` run, set here, not on the #! line (see above):
 * - `--liftoff-only` keeps WebAssembly (the Bash grammar) on V8's baseline compiler. Left to tier up, V8 compiles the
 *   parser's hot functions with TurboFan on a background thread, and the process cannot exit until that is done: about
 *   as long again as the whole run, spent after its answer is printed.
 * The young generation grows as V8 grows it by default (2x at a time). Growing it 8x at once
 * (`--semi-space-growth-factor=8`) ran fewer instructions (callgrind) but cost time: its one growth (1 to 8 MB, at the
 * second scavenge) allocates all those pages at once, each touched for the first time, and where a page fault costs
 * ~10 us (this VM) that scavenge paused 9-22 ms before the first request (perf: SemiSpace::GrowTo, in page faults and
 * page-table allocation). Interleaved A/B without the flag: the first request 3-7 ms sooner.
 * The flags are set after the Node modules every `cairn -p` run loads before its first request: a flag changed at run
 * time also makes V8 reject Node's code cache for every module loaded after it, which then compiles from source
 * (callgrind: 6% more instructions per run). The bundle's own code cache is made and used under the flags, so it stays
 * valid from one `cairn -p` to the next.
 */
function oneShotV8Flags() {
  // Model requests (httpFetch over node:http, the SDK's web streams), files, the git snapshot and hooks, ids, the
  // arguments.
  for (const name of ["node:http", "node:fs/promises", "node:child_process", "node:crypto", "node:os"]) require(name);
  void globalThis.ReadableStream;
  void globalThis.crypto;
  void require("node:util").parseArgs;
  require("node:v8").setFlagsFromString("--liftoff-only");
}

start().then((code) => {
  // Let pending stdout writes drain before exiting.
  process.stdout.write("", () => process.exit(code));
});
