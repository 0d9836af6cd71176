import type { Redis } from "ioredis";
import type { SequencedEvent } from "../../router/context.ts";
import type { SessionEvent } from "../../router/types.ts";
import { countListeners, type EventBus, type EventListener, type Replay } from "../../hub/event-bus.ts";
import { parsedEvent, payloadOf, seqOf } from "./stream-entries.ts";
import { StreamFence } from "./stream-fence.ts";
import { type AppendingChannel, StreamAppends } from "./stream-appends.ts";
import { RecentEvents } from "./recent-events.ts";
import { StreamReader } from "./stream-reader.ts";

export const DEFAULT_STREAM_MAXLEN = 10_000;
/** Events kept in memory per session for fast replays; older ones come from the stream. */
const LOCAL_WINDOW = 2_000;

export type RedisEventBusOptions = {
  /** The command connection (XADD, XRANGE); the bus makes its own blocking reader from it. */
  redis: Redis;
  /** Entries kept per stream (approximately: `XADD MAXLEN ~`). */
  maxLen?: number;
  /** Key prefix; one stream per session at `<prefix><sessionId>`. */
  prefix?: string;
  /**
   * Session leases are on: the lease generation this node holds for a session (undefined: none).
   * Each append carries it and the stream's fence refuses a stale one; a node that holds no lease
   * publishes nothing.
   */
  fence?: (sessionId: string) => number | undefined;
  /** Failed appends and reads (logged by the caller); the bus keeps going. */
  onError?: (error: Error, context: string) => void;
  /** How long one blocking read waits (ms; default 1 s); a change to what it reads wakes it earlier. */
  readerBlockMs?: number;
};

type Channel = AppendingChannel & {
  /** The highest seq this node knows of the session (published here or read from the stream). */
  seq: number;
  /** The last `LOCAL_WINDOW` events by seq. */
  recent: RecentEvents;
  listeners: Set<EventListener>;
  /** The generation (0: none) of the last refusal logged, so a refused run logs once, not per event. */
  refusalSaid: number | undefined;
  /** The lease generation this node last published under (undefined: it has published nothing). */
  publishedAt: number | undefined;
};

/**
 * The event fan-out over Redis Streams: one stream per session, entry id `<seq>-0`, where seq is the
 * `tracked()` id a browser resumes from, so a tab may reconnect to any node. The node running a
 * session publishes: the event reaches this node's listeners at once and is appended with
 * `XADD … MAXLEN ~ n <seq>-0`. Every node reads the sessions its tabs watch through one blocking
 * connection (`XREAD BLOCK` over all of them) and fans out in-process; with leases, not the streams it
 * appends to itself (its tabs had those events as they were published), until the lease moves. A replay older than this
 * node's memory reads the stream (`XRANGE`); a cursor already trimmed away is a gap, which the
 * subscriber answers with a resync (the conversation as a snapshot), never a silent hole.
 */
export class RedisEventBus implements EventBus {
  private readonly redis: Redis;
  private readonly reader: StreamReader;
  private readonly channels = new Map<string, Channel>();
  private readonly prefix: string;
  private readonly onError: (error: Error, context: string) => void;
  private readonly fence: ((sessionId: string) => number | undefined) | undefined;
  private readonly streamFence: StreamFence;
  /** What is published here on its way to the streams (one pipeline at a time, each with everything published meanwhile). */
  private readonly appends: StreamAppends<Channel>;

  constructor(options: RedisEventBusOptions) {
    this.redis = options.redis;
    this.fence = options.fence;
    this.streamFence = new StreamFence(options.redis);
    this.prefix = options.prefix ?? "cairn:events:";
    this.onError = options.onError ?? (() => undefined);
    this.appends = new StreamAppends<Channel>({
      redis: options.redis,
      streamFence: this.streamFence,
      maxLen: options.maxLen ?? DEFAULT_STREAM_MAXLEN,
      key: (sessionId) => this.key(sessionId),
      fenceKey: (sessionId) => this.fenceKey(sessionId),
      fenced: (sessionId, channel, generation, seq, fence) => this.fenced(sessionId, channel, generation, seq, fence),
      onError: this.onError,
    });
    const readerConnection = options.redis.duplicate();
    readerConnection.on("error", (error: Error) => this.onError(error, "reader connection"));
    this.reader = new StreamReader({
      redis: readerConnection,
      control: options.redis,
      deliver: (key, seq, fields) => this.ingestEntry(key.slice(this.prefix.length), seq, fields),
      appendingAt: (key) => this.appendingAt(key.slice(this.prefix.length)),
      ...(options.readerBlockMs === undefined ? {} : { blockMs: options.readerBlockMs }),
      onError: this.onError,
    });
  }

  /** Brings this node's seq up to the stream's last entry, so what it publishes next follows it. */
  async prepare(sessionId: string): Promise<void> {
    const last = await this.redis.xrevrange(this.key(sessionId), "+", "-", "COUNT", 1);
    const lastSeq = last[0] ? seqOf(last[0][0]) : 0;
    const channel = this.channel(sessionId);
    channel.seq = Math.max(channel.seq, lastSeq);
  }

  publish(sessionId: string, event: SessionEvent): number {
    const channel = this.channel(sessionId);
    const generation = this.fence?.(sessionId);
    if (this.fence && (generation === undefined || generation <= channel.fencedAt)) {
      this.refused(sessionId, channel, generation);
      return channel.seq;
    }
    channel.seq += 1;
    channel.publishedAt = generation;
    // Serialized once: the stream entry's payload, and the frame this node's own tabs are sent.
    const json = JSON.stringify(event);
    const item: SequencedEvent = { seq: channel.seq, event, json };
    this.remember(channel, item);
    channel.unsent.push({ id: `${item.seq}-0`, payload: json, seq: item.seq, generation });
    this.appends.queue(sessionId, channel);
    for (const listener of [...channel.listeners]) listener(item);
    return item.seq;
  }

  /** This node has taken the session over at `generation`: appends of older generations are refused from now on. */
  async raiseFence(sessionId: string, generation: number): Promise<void> {
    await this.streamFence.raise(this.fenceKey(sessionId), generation);
  }

  lastSeq(sessionId: string): number {
    return this.channels.get(sessionId)?.seq ?? 0;
  }

  /** From this node's memory at once when it holds every event after `afterSeq` (a live subscriber's case); otherwise from the stream. */
  replay(sessionId: string, afterSeq: number): Replay | Promise<Replay> {
    const channel = this.channel(sessionId);
    if (afterSeq === channel.seq) return { kind: "events", events: [] };
    const held = channel.recent.after(afterSeq, channel.seq);
    return held ? { kind: "events", events: held } : this.replayFromStream(sessionId, afterSeq);
  }

  private async replayFromStream(sessionId: string, afterSeq: number): Promise<Replay> {
    const channel = this.channel(sessionId);
    if (afterSeq >= channel.seq) {
      if (afterSeq === channel.seq) return { kind: "events", events: [] };
      // Ahead of what this node knows: maybe the stream is further on; else the cursor is from another life.
      await this.prepare(sessionId);
      if (afterSeq === channel.seq) return { kind: "events", events: [] };
      // The subscriber only needs where the stream starts: the snapshot comes first, then the events after it.
      if (afterSeq > channel.seq) return { kind: "gap", events: await this.read(sessionId, 0, 1) };
    }
    const held = channel.recent.after(afterSeq, channel.seq);
    if (held) return { kind: "events", events: held };
    const events = await this.read(sessionId, afterSeq);
    for (const item of events) this.ingest(channel, item, false);
    if (events.length === 0) return { kind: "events", events };
    return events[0]?.seq === afterSeq + 1 ? { kind: "events", events } : { kind: "gap", events };
  }

  subscribe(sessionId: string, listener: EventListener): () => void {
    const channel = this.channel(sessionId);
    channel.listeners.add(listener);
    if (channel.listeners.size === 1) this.reader.watch(this.key(sessionId), channel.seq);
    return () => {
      channel.listeners.delete(listener);
      if (channel.listeners.size === 0) this.reader.unwatch(this.key(sessionId));
    };
  }

  listenerCount(sessionId?: string): number {
    return countListeners(this.channels, sessionId);
  }

  drop(sessionId: string): void {
    this.reader.unwatch(this.key(sessionId));
    this.channels.delete(sessionId);
  }

  /** Waits for every append queued so far (tests, graceful shutdown). */
  async flush(): Promise<void> {
    await this.appends.flush();
  }

  async close(): Promise<void> {
    await this.flush();
    await this.reader.close();
  }

  /** The lease went to another node: the blocking reader takes the stream back at once, after the last seq here. */
  ownerLeft(sessionId: string): void {
    const channel = this.channels.get(sessionId);
    if (!channel || channel.publishedAt === undefined) return;
    channel.publishedAt = undefined;
    this.reader.resume(this.key(sessionId), channel.seq);
  }

  /**
   * With leases, a session whose stream only this node appends to: it holds the lease, has published under it (so its
   * seq is past whatever an earlier owner appended, and its listeners were told of each event as it was published) and
   * the stream has not refused it. The blocking reader leaves such a stream out and resumes after this seq once the
   * lease has moved. Without leases any node may append, so every watched stream is read.
   */
  private appendingAt(sessionId: string): number | undefined {
    const channel = this.channels.get(sessionId);
    if (!this.fence || !channel || channel.publishedAt === undefined) return undefined;
    const generation = this.fence(sessionId);
    if (generation === undefined || generation !== channel.publishedAt || generation <= channel.fencedAt) return undefined;
    return channel.seq;
  }

  /** A publish this node may not make (no lease, or one another node has taken over since): dropped, said once per generation. */
  private refused(sessionId: string, channel: Channel, generation: number | undefined): void {
    const said = generation ?? 0;
    if (channel.refusalSaid === said) return;
    channel.refusalSaid = said;
    this.onError(
      new Error(
        generation === undefined
          ? `refused to publish to session ${sessionId}: this node holds no lease for it`
          : `refused to publish to session ${sessionId}: lease generation ${generation} is no longer current`,
      ),
      "publish",
    );
  }

  /**
   * The stream refused an append: another node took the session over (its generation `fence`). What
   * this node published from `seq` on reached its own tabs only: it is forgotten, the seq follows the
   * stream again, and each local subscriber is told to resync from just before it.
   */
  private async fenced(sessionId: string, channel: Channel, generation: number, seq: number, fence: number): Promise<void> {
    if (channel.fencedAt >= generation) return;
    channel.fencedAt = generation;
    channel.refusalSaid = generation;
    this.onError(
      new Error(`refused to publish to session ${sessionId}: lease generation ${generation} is no longer current (the stream's fence is at ${fence})`),
      "publish",
    );
    channel.recent.dropFrom(seq);
    const last = await this.redis.xrevrange(this.key(sessionId), "+", "-", "COUNT", 1);
    channel.seq = Math.max(seq - 1, last[0] ? seqOf(last[0][0]) : 0);
    const resync: SequencedEvent = { seq: seq - 1, event: { type: "resync" } };
    for (const listener of [...channel.listeners]) listener(resync);
    // The stream is another node's now: its blocking read here resumes at once, after the stream's seq (the reader may
    // have moved past it, to what this node published and the stream refused, while it left the stream out).
    this.reader.resume(this.key(sessionId), channel.seq);
  }

  /** Entries after `afterSeq` from the stream itself. */
  private async read(sessionId: string, afterSeq: number, count?: number): Promise<SequencedEvent[]> {
    const key = this.key(sessionId);
    const entries =
      count === undefined ? await this.redis.xrange(key, `(${afterSeq}-0`, "+") : await this.redis.xrange(key, `(${afterSeq}-0`, "+", "COUNT", count);
    const events: SequencedEvent[] = [];
    for (const [id, fields] of entries) {
      const json = payloadOf(fields);
      const event = json === undefined ? undefined : parsedEvent(json);
      if (event) events.push({ seq: seqOf(id), event, json: json as string });
    }
    return events;
  }

  /**
   * An entry the blocking reader got. With leases, one this node already holds (it published it, or read it before)
   * is not parsed again: a session's owner reads back its own entries when tabs on it follow the session. (An entry
   * of another owner at a seq this node also published means this node's append was refused: `fenced` drops what it
   * holds from there on.) Without leases two nodes may both append, and the stream's entry replaces the one held.
   */
  private ingestEntry(sessionId: string, seq: number, fields: readonly string[]): void {
    const channel = this.channels.get(sessionId);
    if (!channel || (this.fence && seq <= channel.seq && channel.recent.has(seq))) return;
    const json = payloadOf(fields);
    const event = json === undefined ? undefined : parsedEvent(json);
    if (event) this.ingest(channel, { seq, event, json: json as string });
  }

  /** An entry read from the stream: new ones go to this node's listeners. */
  private ingest(channel: Channel, item: SequencedEvent, notify = true): void {
    this.remember(channel, item);
    if (item.seq <= channel.seq) return;
    channel.seq = item.seq;
    if (!notify) return;
    for (const listener of [...channel.listeners]) listener(item);
  }

  private remember(channel: Channel, item: SequencedEvent): void {
    channel.recent.set(item);
  }

  private channel(sessionId: string): Channel {
    let channel = this.channels.get(sessionId);
    if (!channel) {
      channel = {
        seq: 0,
        recent: new RecentEvents(LOCAL_WINDOW),
        listeners: new Set(),
        unsent: [],
        fencedAt: 0,
        refusalSaid: undefined,
        publishedAt: undefined,
      };
      this.channels.set(sessionId, channel);
    }
    return channel;
  }

  private key(sessionId: string): string {
    return `${this.prefix}${sessionId}`;
  }

  private fenceKey(sessionId: string): string {
    return `${this.prefix}${sessionId}:fence`;
  }
}
