import type { SessionEvent } from "./chat-types.ts";

export type QueuedEvent = { id: string; event: SessionEvent };

/** Deltas arrive faster than frames: they are applied in batches, at most one per this many ms. */
export const FLUSH_MS = 16;

/**
 * Collects streamed events and hands them to `apply` together, `delayMs` after the first of a batch
 * arrived. `drain` stops the pending flush and returns what was still queued (for a last save, or to drop).
 */
export function createEventBatcher(apply: (batch: QueuedEvent[]) => void, delayMs = FLUSH_MS) {
  const queue: QueuedEvent[] = [];
  let timer: ReturnType<typeof setTimeout> | undefined;
  const drain = (): QueuedEvent[] => {
    if (timer) clearTimeout(timer);
    timer = undefined;
    return queue.splice(0);
  };
  const flush = () => {
    const batch = drain();
    if (batch.length > 0) apply(batch);
  };
  return {
    push(item: QueuedEvent): void {
      queue.push(item);
      timer ??= setTimeout(flush, delayMs);
    },
    flush,
    drain,
  };
}
