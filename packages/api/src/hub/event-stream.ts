import type { SequencedEvent } from "../router/context.ts";
import type { SessionEvent } from "../router/types.ts";
import type { EventBus } from "./event-bus.ts";

export type StreamEventsOptions = {
  bus: EventBus;
  sessionId: string;
  /** The seq of the last event the subscriber has; 0 for none. */
  afterSeq: number;
  signal: AbortSignal;
  /**
   * What to send when the subscriber is further behind than the bus retains (or ahead of it, after a
   * server restart): the conversation so far as `message` events and the current `session-state`.
   * Clients key messages by uuid, so one they already hold is replaced, not duplicated.
   */
  backfill: () => Promise<SessionEvent[]>;
};

/**
 * One subscriber's view of a session: it listens first, then reads the retained events after its
 * cursor, then keeps reading as listeners fire. Reading by seq from the bus (not from a private
 * queue) makes duplicates impossible and lets a slow subscriber fall behind without buffering:
 * at worst it gets a backfill. Returns when `signal` aborts; always unsubscribes.
 */
export async function* streamEvents(options: StreamEventsOptions): AsyncGenerator<SequencedEvent> {
  const { bus, sessionId, signal } = options;
  let wake: (() => void) | undefined;
  let dirty = true;
  const notify = () => {
    dirty = true;
    const resolve = wake;
    wake = undefined;
    resolve?.();
  };
  const unsubscribe = bus.subscribe(sessionId, notify);
  signal.addEventListener("abort", notify);
  let cursor = options.afterSeq;
  try {
    while (!signal.aborted) {
      if (!dirty) {
        await new Promise<void>((resolve) => {
          wake = resolve;
        });
        continue;
      }
      dirty = false;
      const replay = bus.replay(sessionId, cursor);
      if (replay.kind === "gap") {
        const base = (replay.events[0]?.seq ?? bus.lastSeq(sessionId) + 1) - 1;
        const events = await options.backfill();
        for (const event of events) {
          if (signal.aborted) return;
          yield { seq: base, event };
        }
        cursor = base;
        dirty = true;
        continue;
      }
      for (const item of replay.events) {
        if (item.seq <= cursor) continue;
        cursor = item.seq;
        yield item;
        if (signal.aborted) return;
      }
    }
  } finally {
    wake = undefined;
    unsubscribe();
    signal.removeEventListener("abort", notify);
  }
}
