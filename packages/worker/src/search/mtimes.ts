import { statSync } from "node:fs";
import { abortError } from "../errors.ts";

const BATCH = 500;

/** A file's modification time, or undefined if it cannot be statted (gone, unreadable). */
export function mtimeOf(path: string): number | undefined {
  try {
    return statSync(path, { throwIfNoEntry: false })?.mtimeMs;
  } catch {
    return undefined;
  }
}

/**
 * Modification times of many files; vanished files are left out. Synchronous stats cost a few
 * microseconds each against tens for a thread-pool round trip; the event loop gets a turn between batches.
 */
export async function modificationTimes(paths: readonly string[], signal?: AbortSignal): Promise<Map<string, number>> {
  const times = new Map<string, number>();
  for (let start = 0; start < paths.length; start += BATCH) {
    if (signal?.aborted) throw abortError(signal);
    for (const path of paths.slice(start, start + BATCH)) {
      const mtime = mtimeOf(path);
      if (mtime !== undefined) times.set(path, mtime);
    }
    if (start + BATCH < paths.length) await new Promise((resolve) => setImmediate(resolve));
  }
  return times;
}
