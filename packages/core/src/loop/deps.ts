import type { Compactor } from "../compact/port.ts";
import { noCompaction } from "../compact/port.ts";
import type { ModelClient } from "../model/port.ts";

/** Every side effect the loop has comes through here; tests pass fakes, production the real ones. */
export type QueryDeps = {
  model: ModelClient;
  uuid: () => string;
  now: () => number;
  random: () => number;
  sleep: (ms: number, signal: AbortSignal) => Promise<void>;
  compactor: Compactor;
};

export function abortableSleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal.aborted) return reject(new DOMException("Aborted", "AbortError"));
    const onAbort = () => {
      clearTimeout(timer);
      reject(new DOMException("Aborted", "AbortError"));
    };
    const timer = setTimeout(() => {
      signal.removeEventListener("abort", onAbort);
      resolve();
    }, ms);
    signal.addEventListener("abort", onAbort, { once: true });
  });
}

export function productionDeps(model: ModelClient): QueryDeps {
  return {
    model,
    uuid: () => crypto.randomUUID(),
    now: () => Date.now(),
    random: Math.random,
    sleep: abortableSleep,
    compactor: noCompaction,
  };
}
