import { stat } from "node:fs/promises";

const CONCURRENCY = 64;

/** Modification times of many files, a bounded number of stats in flight; vanished files are left out. */
export async function modificationTimes(paths: readonly string[], signal?: AbortSignal): Promise<Map<string, number>> {
  const times = new Map<string, number>();
  let next = 0;
  const worker = async () => {
    while (next < paths.length) {
      signal?.throwIfAborted();
      const path = paths[next];
      next += 1;
      if (path === undefined) continue;
      try {
        times.set(path, (await stat(path)).mtimeMs);
      } catch {
        // deleted since it was listed
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(CONCURRENCY, paths.length) }, worker));
  return times;
}
