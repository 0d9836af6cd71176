import { type FSWatcher, realpathSync, statSync, watch } from "node:fs";
import { dirname } from "node:path";
import type { MemoryWatch } from "../memory/port.ts";

/** More directories than this (an unusual skill tree) are not watched: the checks stat the paths instead. */
const MAX_WATCHED_DIRECTORIES = 256;

function isDirectory(path: string): boolean {
  return statSync(path, { throwIfNoEntry: false })?.isDirectory() ?? false;
}

/** The directory itself if it exists, else its nearest existing ancestor (where it would be created). */
function nearestExistingDirectory(directory: string): string {
  let current = directory;
  while (!isDirectory(current)) {
    const parent = dirname(current);
    if (parent === current) return current;
    current = parent;
  }
  return current;
}

/** The directories whose events tell of a change to `path`: where it is (or would be created), its target's, itself if a directory. */
function directoriesFor(path: string): string[] {
  const directories = [nearestExistingDirectory(dirname(path))];
  let real: string | null = null;
  try {
    real = realpathSync(path);
  } catch {
    return directories;
  }
  if (real !== path) directories.push(dirname(real));
  if (isDirectory(real)) directories.push(real);
  return directories;
}

/**
 * Watches the directories that hold `paths` with the OS's file events (inotify on Linux) and reports a
 * change as soon as any event came: a check costs no system call while nothing moved. Null when a watch
 * cannot be set up (too many directories, out of watches); the caller then stats.
 */
export function watchMemoryPaths(paths: readonly string[]): MemoryWatch | null {
  const directories = new Set<string>();
  for (const path of paths) for (const directory of directoriesFor(path)) directories.add(directory);
  if (directories.size > MAX_WATCHED_DIRECTORIES) return null;
  let dirty = false;
  const markDirty = () => {
    dirty = true;
  };
  const watchers: FSWatcher[] = [];
  const closeAll = () => {
    for (const watcher of watchers.splice(0)) watcher.close();
  };
  try {
    for (const directory of directories) {
      // Not persistent: a watch never keeps the process alive.
      const watcher = watch(directory, { persistent: false }, markDirty);
      // A failed watch reports nothing more, so it counts as a change: the next check stats and watches anew.
      watcher.on("error", markDirty);
      watchers.push(watcher);
    }
  } catch {
    closeAll();
    return null;
  }
  return {
    async changed() {
      if (dirty) return true;
      // A change made before this call queued its event before whatever I/O led here completed; the event is
      // read in the current poll phase, which has run by the time setImmediate's check phase comes.
      await new Promise<void>((resolve) => setImmediate(resolve));
      return dirty;
    },
    close: closeAll,
  };
}
