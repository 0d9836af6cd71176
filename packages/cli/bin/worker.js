#!/usr/bin/env node
// The local workspace worker process that `cairn serve` starts: runs the worker's own bundle (dist/worker.cjs, built
// with the CLI's) through V8's code cache, as bin/cairn.js runs the CLI's, and serves the worker protocol on
// stdin/stdout until its parent closes stdin. CommonJS (bin/package.json), so a start never sets up Node's ES module
// loader.
"use strict";
const { existsSync } = require("node:fs");
const { join } = require("node:path");
const { loadBundle } = require("./load-bundle.js");

const bundle = join(__dirname, "..", "dist", "worker.cjs");

async function start() {
  if (!existsSync(bundle)) {
    process.stderr.write(`cairn worker: the built worker (${bundle}) is missing. Build it with \`npm run build -w @cairn/cli\`.\n`);
    return 1;
  }
  const loaded = loadBundle(bundle, "worker");
  await loaded.exports.main();
  // After the parent let go: the cache then holds what this worker compiled while serving.
  loaded.saveCompileCache();
  return 0;
}

start().then((code) => process.exit(code));
