// Loads the CLI bundle (one CommonJS file) through V8's code cache. Node 20 has no compile cache of its own
// (`module.enableCompileCache` arrived in Node 22.1) and none at all for ES modules, so the bundle is CommonJS and
// compiled here as a vm.Script: a start that finds the cache skips parsing and compiling the bundle, and the
// functions the last run compiled come back ready too. Without a usable cache it compiles as Node would, and
// leaves one for the next start.
import { readFileSync, renameSync, rmSync, statSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname } from "node:path";
import vm from "node:vm";

/**
 * Compiles and runs `file`, and returns what it exports and a function that writes the code cache for the next start
 * (a no-op when this start used one). `kind` names the cache: each command (`print`, `serve`, …) compiles other
 * functions, so each keeps its own.
 */
export function loadBundle(file, kind) {
  const source = readFileSync(file, "utf8");
  // V8 checks a cache against the source's length only: the name ties it to this very build (size and time).
  const { size, mtimeMs } = statSync(file);
  const cacheFile = `${file}.${kind}-${size}-${Math.trunc(mtimeMs)}.v8-cache`;
  let cachedData;
  try {
    cachedData = readFileSync(cacheFile);
  } catch {
    cachedData = undefined;
  }
  // The wrapper stays on the bundle's first line (a comment), so line numbers match its source map.
  const script = new vm.Script(`(function (exports, require, module, __filename, __dirname) {${source}\n})`, {
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
