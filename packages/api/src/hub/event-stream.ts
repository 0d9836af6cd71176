import { Notifier } from "@cairn/core";
import type { SequencedEvent } from "../router/context.ts";
import type { SessionEvent } from "../router/types.ts";
import type { EventBus, Replay } from "./event-bus.ts";

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

export type EventFeedOptions = Omit<StreamEventsOptions, "signal">;

/** What one `take` read: the events in order, and whether more may already be there (after a resync). */
export type EventBatch = { events: SequencedEvent[]; more: boolean };

/**
 * One subscriber's cursor over a session's events, read in batches: `listen` says when the session
 * published, `take` returns everything after the cursor and moves it on. Reading by seq from the bus
 * (not from a private queue) makes duplicates impossible and lets a slow subscriber fall behind
 * without buffering: at worst it gets a backfill.
 */
export class EventFeed {
  private readonly options: EventFeedOptions;
  private cursor: number;
  /** Set when the bus says what this subscriber got from `resyncAfter` on is void (a stale owner's events): it starts again there. */
  private resyncAfter: number | undefined;

  constructor(options: EventFeedOptions) {
    this.options = options;
    this.cursor = options.afterSeq;
  }

  /** Calls `onPublished` after each event the session publishes; returns the unsubscribe. Listen before the first `take`. */
  listen(onPublished: () => void): () => void {
    return this.options.bus.subscribe(this.options.sessionId, (item) => {
      if (item.event.type === "resync") this.resyncAfter = Math.min(this.resyncAfter ?? item.seq, item.seq);
      onPublished();
    });
  }

  /**
   * The events after the cursor: the retained ones (adjacent deltas joined), or, when the cursor is
   * gone from the bus, a resync and the backfill, all under the seq just before the oldest retained
   * event (`more` then says the retained events are still to be taken). When the bus voided events
   * this subscriber has (a resync event at or before its cursor), the resync starts over there.
   * Events the bus holds in memory are taken at once, without a promise (the live case: one take per
   * subscriber and publish); a read from a shared bus's stream, or a backfill, is waited for.
   */
  take(): EventBatch | Promise<EventBatch> {
    const { bus, sessionId } = this.options;
    const voided = this.resyncAfter !== undefined && this.resyncAfter < this.cursor ? this.resyncAfter : undefined;
    this.resyncAfter = undefined;
    if (voided !== undefined) return this.resync(voided);
    const replay = bus.replay(sessionId, this.cursor);
    return replay instanceof Promise ? replay.then((read) => this.taken(read)) : this.taken(replay);
  }

  private taken(replay: Replay): EventBatch | Promise<EventBatch> {
    if (replay.kind === "gap") return this.resync((replay.events[0]?.seq ?? this.options.bus.lastSeq(this.options.sessionId) + 1) - 1);
    const events = coalesceDeltas(replay.events.filter((event) => event.seq > this.cursor));
    const last = events.at(-1);
    if (last) this.cursor = last.seq;
    return { events, more: false };
  }

  private async resync(base: number): Promise<EventBatch> {
    const backfill = await this.options.backfill();
    this.cursor = base;
    // Said first, so the client knows to replace what it holds rather than add to it.
    return { events: [{ seq: base, event: { type: "resync" } }, ...backfill.map((event) => ({ seq: base, event }))], more: true };
  }
}

/**
 * One subscriber's view of a session as an async generator of single events: it listens first, then
 * reads the retained events after its cursor, then keeps reading as the session publishes. Returns
 * when `signal` aborts; always unsubscribes.
 */
export async function* streamEvents(options: StreamEventsOptions): AsyncGenerator<SequencedEvent> {
  const { signal } = options;
  const feed = new EventFeed(options);
  // Notified from the start: the retained events after the cursor are read before the first wait.
  const wakeUps = new Notifier({ notified: true });
  const unsubscribe = feed.listen(() => wakeUps.notify());
  try {
    while ((await wakeUps.wait(signal)) && !signal.aborted) {
      const batch = await feed.take();
      if (signal.aborted) return;
      if (batch.more) wakeUps.notify();
      for (const item of batch.events) {
        yield item;
        if (signal.aborted) return;
      }
    }
  } finally {
    unsubscribe();
  }
}

type Delta = Extract<SessionEvent, { type: "text-delta" | "thinking-delta" | "tool-input-delta" }>;

function isDelta(event: SessionEvent): event is Delta {
  return event.type === "text-delta" || event.type === "thinking-delta" || event.type === "tool-input-delta";
}

function joined(left: Delta, right: Delta): Delta | undefined {
  if (left.type !== right.type || left.index !== right.index) return undefined;
  switch (left.type) {
    case "text-delta":
      return { ...left, text: left.text + (right as typeof left).text };
    case "thinking-delta":
      return { ...left, thinking: left.thinking + (right as typeof left).thinking };
    case "tool-input-delta":
      return { ...left, partialJson: left.partialJson + (right as typeof left).partialJson };
  }
}

/**
 * A subscriber that fell behind gets adjacent deltas of one block as one event, carrying the seq of
 * the last: every character arrives once and a resume from that seq continues right after it. Each
 * SSE message costs the server far more than its bytes, so this is how a backlog clears. A subscriber
 * that keeps up sees every delta as it was published.
 */
export function coalesceDeltas(items: readonly SequencedEvent[]): SequencedEvent[] {
  if (items.length < 2) return [...items];
  const out: SequencedEvent[] = [];
  for (const item of items) {
    const last = out.at(-1);
    const merged = last && isDelta(last.event) && isDelta(item.event) ? joined(last.event, item.event) : undefined;
    if (last && merged) out[out.length - 1] = { seq: item.seq, event: merged };
    else out.push(item);
  }
  return out;
}
