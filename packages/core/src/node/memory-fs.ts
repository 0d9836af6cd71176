import { statSync } from "node:fs";
import { readdir, readFile, realpath, stat } from "node:fs/promises";
import { join } from "node:path";
import type { MemoryFs } from "../memory/port.ts";
import { watchMemoryPaths } from "./memory-watch.ts";

/** Memory and skill discovery on the local disk, changes watched with the OS's file events. Every miss is a null, never a throw. */
export function createNodeMemoryFs(): MemoryFs {
  const listing = async (path: string, wantDirectories: boolean): Promise<string[] | null> => {
    const entries = await readdir(path, { withFileTypes: true }).catch(() => null);
    if (!entries) return null;
    const names: string[] = [];
    for (const entry of entries) {
      let isDirectory = entry.isDirectory();
      let isFile = entry.isFile();
      if (entry.isSymbolicLink()) {
        const target = await stat(join(path, entry.name)).catch(() => null);
        isDirectory = target?.isDirectory() ?? false;
        isFile = target?.isFile() ?? false;
      }
      if (wantDirectories ? isDirectory : isFile) names.push(entry.name);
    }
    return names;
  };
  return {
    async stat(path) {
      const info = await stat(path).catch(() => null);
      return info ? { mtimeMs: info.mtimeMs, isDirectory: info.isDirectory() } : null;
    },
    async mtimes(paths) {
      // Synchronous on purpose: a few dozen stats of cached inodes take well under a millisecond in one go,
      // while as many asynchronous stats queue behind every other file operation on libuv's four threads.
      return paths.map((path) => {
        try {
          return statSync(path, { throwIfNoEntry: false })?.mtimeMs ?? null;
        } catch {
          return null;
        }
      });
    },
    async readText(path) {
      return readFile(path, "utf8").catch(() => null);
    },
    listDirectories: (path) => listing(path, true),
    listFiles: (path) => listing(path, false),
    async realPath(path) {
      return realpath(path).catch(() => null);
    },
    watch: watchMemoryPaths,
  };
}
