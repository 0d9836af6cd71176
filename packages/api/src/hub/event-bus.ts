import type { SequencedEvent } from "../router/context.ts";
import type { SessionEvent } from "../router/types.ts";

export type EventListener = (item: SequencedEvent) => void;

/** What a replay could give: the retained events after a seq, or word that older ones are gone. */
export type Replay =
  | { kind: "events"; events: SequencedEvent[] }
  /** `afterSeq` is older than the oldest retained event (or newer than the last one: a restarted server). */
  | { kind: "gap"; events: SequencedEvent[] };

/**
 * The per-session event fan-out: a monotonic seq per event, a bounded replay window, many listeners.
 * The in-memory bus serves one process; Redis Streams fit the same shape (XADD with `<seq>-0` ids,
 * XRANGE for replay, XREAD BLOCK for listeners), which is why nothing else touches the ring.
 */
export interface EventBus {
  /** Assigns the next seq and delivers the event to the session's listeners synchronously. */
  publish(sessionId: string, event: SessionEvent): number;
  lastSeq(sessionId: string): number;
  /** In memory at once; a shared bus (Redis Streams) may have to read older events from the stream. */
  replay(sessionId: string, afterSeq: number): Replay | Promise<Replay>;
  subscribe(sessionId: string, listener: EventListener): () => void;
  listenerCount(sessionId?: string): number;
  /** Forgets a session's events and seq counter (its listeners must be gone). */
  drop(sessionId: string): void;
  /** A shared bus: catch up with what other nodes published before this node publishes to the session. */
  prepare?(sessionId: string): Promise<void>;
  /** A shared bus: this node no longer owns the session (its lease went to another node); read what others append from here on. */
  ownerLeft?(sessionId: string): void;
}

export const DEFAULT_RING_SIZE = 5_000;

type Channel = {
  seq: number;
  /** A circular buffer of the last `capacity` events. */
  ring: Array<SequencedEvent | undefined>;
  listeners: Set<EventListener>;
};

export class MemoryEventBus implements EventBus {
  private readonly channels = new Map<string, Channel>();
  private readonly capacity: number;

  constructor(options: { ringSize?: number } = {}) {
    this.capacity = Math.max(1, options.ringSize ?? DEFAULT_RING_SIZE);
  }

  publish(sessionId: string, event: SessionEvent): number {
    const channel = this.channel(sessionId);
    channel.seq += 1;
    const item: SequencedEvent = { seq: channel.seq, event };
    channel.ring[channel.seq % this.capacity] = item;
    for (const listener of [...channel.listeners]) listener(item);
    return channel.seq;
  }

  lastSeq(sessionId: string): number {
    return this.channels.get(sessionId)?.seq ?? 0;
  }

  replay(sessionId: string, afterSeq: number): Replay {
    const channel = this.channels.get(sessionId);
    const last = channel?.seq ?? 0;
    const oldest = Math.max(1, last - this.capacity + 1);
    if (afterSeq > last) return { kind: "gap", events: this.range(channel, oldest, last) };
    if (afterSeq + 1 < oldest) return { kind: "gap", events: this.range(channel, oldest, last) };
    return { kind: "events", events: this.range(channel, afterSeq + 1, last) };
  }

  subscribe(sessionId: string, listener: EventListener): () => void {
    const channel = this.channel(sessionId);
    channel.listeners.add(listener);
    return () => {
      channel.listeners.delete(listener);
    };
  }

  listenerCount(sessionId?: string): number {
    return countListeners(this.channels, sessionId);
  }

  drop(sessionId: string): void {
    this.channels.delete(sessionId);
  }

  private channel(sessionId: string): Channel {
    let channel = this.channels.get(sessionId);
    if (!channel) {
      channel = { seq: 0, ring: new Array(this.capacity), listeners: new Set() };
      this.channels.set(sessionId, channel);
    }
    return channel;
  }

  private range(channel: Channel | undefined, from: number, to: number): SequencedEvent[] {
    if (!channel) return [];
    const events: SequencedEvent[] = [];
    for (let seq = from; seq <= to; seq++) {
      const item = channel.ring[seq % this.capacity];
      if (item && item.seq === seq) events.push(item);
    }
    return events;
  }
}

/** Listeners of one session's channel, or of all channels (a bus keeps a listener set per session). */
export function countListeners(channels: ReadonlyMap<string, { listeners: ReadonlySet<unknown> }>, sessionId: string | undefined): number {
  if (sessionId !== undefined) return channels.get(sessionId)?.listeners.size ?? 0;
  let total = 0;
  for (const channel of channels.values()) total += channel.listeners.size;
  return total;
}
