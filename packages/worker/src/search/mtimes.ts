import { stat } from "node:fs";
import { abortError } from "../errors.ts";

const IN_FLIGHT = 128;

/**
 * Collects modification times of paths as they are found, so the stats run while the listing is
 * still streaming in; vanished files are left out. Uses the callback API, whose per-call cost is a
 * fraction of fs/promises' (there is one call per listed file, so it dominates glob's own time).
 */
export class ModificationTimes {
  readonly times = new Map<string, number>();
  private readonly queue: string[] = [];
  private inFlight = 0;
  private settle: (() => void) | undefined;

  add(path: string): void {
    if (this.inFlight >= IN_FLIGHT) this.queue.push(path);
    else this.start(path);
  }

  /** Resolves once every added path has been statted. */
  async done(signal?: AbortSignal): Promise<Map<string, number>> {
    if (this.inFlight > 0) {
      await new Promise<void>((resolve, reject) => {
        const onAbort = () => reject(signal === undefined ? new Error("aborted") : abortError(signal));
        signal?.addEventListener("abort", onAbort, { once: true });
        this.settle = () => {
          signal?.removeEventListener("abort", onAbort);
          resolve();
        };
      });
    }
    return this.times;
  }

  private start(path: string): void {
    this.inFlight += 1;
    stat(path, (error, stats) => {
      if (error === null) this.times.set(path, stats.mtimeMs);
      this.inFlight -= 1;
      const next = this.queue.pop();
      if (next !== undefined) this.start(next);
      else if (this.inFlight === 0) this.settle?.();
    });
  }
}

export function modificationTimes(paths: readonly string[], signal?: AbortSignal): Promise<Map<string, number>> {
  const collector = new ModificationTimes();
  for (const path of paths) collector.add(path);
  return collector.done(signal);
}
