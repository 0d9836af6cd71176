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
  const clusterNode = args[0] === "serve" && distributed(args);
  if (print) oneShotV8Flags();
  else if (clusterNode) clusterNodeV8Flags();
  // The code cache is per kind of start: each compiles other functions, and V8 takes a cache only under the flags
  // it was made with.
  const kind = clusterNode ? "serve-cluster" : SUBCOMMANDS.has(args[0]) ? args[0] : print ? "print" : "other";
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

/** `cairn serve` as a node of a cluster: Redis carries its live events (`--redis-url`, or CAIRN_REDIS_URL). */
function distributed(args) {
  return args.some((arg) => arg === "--redis-url" || arg.startsWith("--redis-url=")) || Boolean(process.env.CAIRN_REDIS_URL);
}

/**
 * V8 flags for an API node of a cluster, which streams many sessions' deltas through the same few dozen functions
 * (the model stream's parser, the query loop, the hub, the Redis bus, the SSE writer) from its first prompt on, and
 * starts cold at every deploy and when it takes over a dead node's sessions:
 * - `--no-lazy-feedback-allocation` gives a function its feedback vector (inline caches, type feedback) at its first
 *   call instead of after ~8 calls' worth of bytecode;
 * - `--interrupt-budget=16896` (a quarter of the default) has V8 consider a hot function for optimization after a
 *   quarter as much bytecode run.
 * Measured with test/bench/distributed-events.bench.ts (100 sessions over two fresh nodes, 2 cores, interleaved
 * runs): both nodes' CPU per delta while streaming 0.15-0.19 ms with the flags against 0.20-0.26 without, p99 28-68 ms
 * against 67-111 ms. They are not set for the embedded default: there one-shot work weighs more, and a cold timeline
 * build (a worker thread of this process, so under the same flags) took longer with them (the IDE's 100k-event
 * timeline interactive from an empty server cache 793-1,189 ms, median ~900, against 632-967, median ~810).
 * Set at run time like the `-p` ones (see above): the Node modules loaded after this compile from source once, a few
 * ms of a server's start.
 */
function clusterNodeV8Flags() {
  require("node:v8").setFlagsFromString("--no-lazy-feedback-allocation");
  require("node:v8").setFlagsFromString("--interrupt-budget=16896");
}

start().then((code) => {
  // Let pending stdout writes drain before exiting.
  process.stdout.write("", () => process.exit(code));
});
