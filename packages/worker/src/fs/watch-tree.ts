import { watch, type FSWatcher } from "node:fs";
import { lstat, readdir } from "node:fs/promises";
import { join } from "node:path";
import type { WatchEvent } from "@cairn/core/workspace";

const ignoredDirectoryNames = new Set([".git", "node_modules"]);

/**
 * Watches a directory tree with one non-recursive fs.watch per directory (Node's recursive mode on
 * Linux would also descend into node_modules), skipping .git and node_modules. Directories created
 * later are picked up. Everything is closed when `signal` aborts.
 */
export function watchTree(root: string, listener: (event: WatchEvent) => void, signal: AbortSignal): void {
  const watchers = new Map<string, FSWatcher>();
  const closeAll = () => {
    for (const watcher of watchers.values()) watcher.close();
    watchers.clear();
  };
  if (signal.aborted) return;
  signal.addEventListener("abort", closeAll, { once: true });

  // A new directory is watched (with what was already created inside it); a removed one is let go.
  const onRename = async (path: string): Promise<void> => {
    const stats = await lstat(path).catch(() => undefined);
    if (stats?.isDirectory()) return watchDirectory(path);
    if (stats !== undefined) return;
    for (const [directory, watcher] of watchers) {
      if (directory === path || directory.startsWith(`${path}/`)) {
        watcher.close();
        watchers.delete(directory);
      }
    }
  };

  const watchDirectory = async (directory: string): Promise<void> => {
    if (signal.aborted || watchers.has(directory)) return;
    const stats = await lstat(directory).catch(() => undefined);
    if (stats?.isDirectory() !== true || signal.aborted || watchers.has(directory)) return;
    let watcher: FSWatcher;
    try {
      watcher = watch(directory, { persistent: false }, (type, name) => {
        if (name === null || signal.aborted) return;
        const path = join(directory, name.toString());
        if (ignoredDirectoryNames.has(name.toString())) return;
        listener({ type: type === "rename" ? "rename" : "change", path });
        if (type === "rename") void onRename(path).catch(() => undefined);
      });
    } catch {
      return; // not a directory (any more), or unreadable
    }
    watcher.on("error", () => {
      watcher.close();
      watchers.delete(directory);
    });
    watchers.set(directory, watcher);
    let entries;
    try {
      entries = await readdir(directory, { withFileTypes: true });
    } catch {
      return;
    }
    await Promise.all(
      entries.filter((entry) => entry.isDirectory() && !ignoredDirectoryNames.has(entry.name)).map((entry) => watchDirectory(join(directory, entry.name))),
    );
  };
  void watchDirectory(root).catch(() => undefined);
}
