// Loads the CLI bundle (one CommonJS file) through V8's code cache. Node 20 has no compile cache of its own
// (`module.enableCompileCache` arrived in Node 22.1) and none at all for ES modules, so the bundle is CommonJS and
// compiled here as a vm.Script: a start that finds the cache skips parsing and compiling the bundle, and the
// functions the last run compiled come back ready too. Without a usable cache it compiles as Node would, and
// leaves one for the next start.
//
// build.mjs writes the bundle already inside CommonJS's module wrapper (BUNDLE_HEAD on its first line, BUNDLE_TAIL
// at its end), so the file as read is the script: wrapping it here made V8 copy the whole 1.7 MB source into one
// more string, young, at every start (a copy, and a scavenge it triggers, before the first request).
"use strict";
const { isAscii } = require("node:buffer");
const { readFileSync, renameSync, rmSync, statSync, writeFileSync } = require("node:fs");
const { createRequire } = require("node:module");
const { dirname } = require("node:path");
const vm = require("node:vm");

/** What the bundle's first line starts with, and how it ends: a function of CommonJS's module arguments. */
const BUNDLE_HEAD = "(function (exports, require, module, __filename, __dirname) {";
const BUNDLE_TAIL = "\n})\n";

/**
 * Compiles and runs `file`, and returns what it exports and a function that writes the code cache for the next start
 * (a no-op when this start used one). `kind` names the cache: each command (`print`, `serve`, …) compiles other
 * functions, so each keeps its own.
 */
function loadBundle(file, kind) {
  // build.mjs refuses a bundle with any byte past ASCII, so Latin-1 gives the same text as UTF-8: Node makes it by
  // copying the bytes (into an external one-byte string), where UTF-8 would decode and check all 1.7 MB at every
  // start (about 2 ms of a `cairn -p` start). A file that is not ASCII after all (edited by hand) is still read as the
  // UTF-8 it is. Only a one-shot `cairn -p` reads it so: under `cairn serve` the events benchmark's RSS per idle session
  // rose from about 0-7 KiB to 33-42 KiB with it (the cause is not understood), and a server's start is not timed.
  const bytes = readFileSync(file);
  const source = kind === "print" && isAscii(bytes) ? bytes.latin1Slice() : bytes.utf8Slice();
  if (!source.startsWith(BUNDLE_HEAD) || !source.endsWith(BUNDLE_TAIL)) {
    throw new Error(
      `${file} is not a bundle built by this version of build.mjs (it must start with ${BUNDLE_HEAD}): rebuild it with \`npm run build -w @cairn/cli\``,
    );
  }
  // V8 checks a cache against the source's length only: the name ties it to this very build (size and time).
  const { size, mtimeMs } = statSync(file);
  // V8 also rejects a cache made under other flags (`cairn` run as a program passes one, `node bin/cairn.js` none):
  // each set of node flags keeps its own, rather than each start replacing the other's.
  const flags = process.execArgv.length === 0 ? "" : `-${stringHash(process.execArgv.join(" "))}`;
  const cacheFile = `${file}.${kind}${flags}-${size}-${Math.trunc(mtimeMs)}.v8-cache`;
  let cachedData;
  try {
    cachedData = readFileSync(cacheFile);
  } catch {
    cachedData = undefined;
  }
  // The wrapper is on the bundle's first line (before a comment), so line numbers match its source map.
  const script = new vm.Script(source, {
    filename: file,
    cachedData,
    importModuleDynamically: vm.constants.USE_MAIN_CONTEXT_DEFAULT_LOADER,
  });
  const module = { exports: {} };
  script.runInThisContext()(module.exports, createRequire(file), module, file, dirname(file));
  const usedCache = cachedData !== undefined && !script.cachedDataRejected;
  return {
    exports: module.exports,
    /** After the command ran, so the cache holds what it compiled. A read-only install just goes without. */
    saveCompileCache() {
      if (usedCache) return;
      const temporary = `${cacheFile}.${process.pid}.tmp`;
      try {
        writeFileSync(temporary, script.createCachedData());
        renameSync(temporary, cacheFile);
      } catch {
        rmSync(temporary, { force: true });
      }
    },
  };
}

/** A short, stable name for a string (FNV-1a, 32 bits, in hex). */
function stringHash(text) {
  let hash = 0x811c9dc5;
  for (let index = 0; index < text.length; index++) hash = Math.imul(hash ^ text.charCodeAt(index), 0x01000193);
  return (hash >>> 0).toString(16).padStart(8, "0");
}

module.exports = { loadBundle, BUNDLE_HEAD, BUNDLE_TAIL };
