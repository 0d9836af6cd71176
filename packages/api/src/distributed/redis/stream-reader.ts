import type { Redis } from "ioredis";
import { seqOf } from "./stream-entries.ts";

export type StreamReaderOptions = {
  /** A connection of its own: it spends its life blocked in XREAD. */
  redis: Redis;
  /** Another connection, used to wake the reader (`CLIENT UNBLOCK`) when the watched set changes. */
  control: Redis;
  /** Each entry read, in order: its seq and its fields (`e` → the event's JSON), parsed only by a node that does not know it yet. */
  deliver: (key: string, seq: number, fields: readonly string[]) => void;
  onError: (error: Error, context: string) => void;
  /**
   * A watched stream this node appends to itself (it holds the session's lease and has published under it): the seq it
   * is at, and the stream is left out of the XREAD (its listeners here had each entry as it was published), its cursor
   * moved to that seq, so reading resumes after it if the node stops appending (the lease moved). Undefined: read it.
   */
  appendingAt?: (key: string) => number | undefined;
  /** How long one XREAD blocks (ms); changes to the watched set wake it earlier. */
  blockMs?: number;
};

const MAX_BACKOFF_MS = 2_000;

/**
 * One blocking reader per node: `XREAD BLOCK` over every stream a tab on this node watches, each
 * from the last id seen, delivering entries in order. Watching a new stream wakes the blocked read
 * so it is included at once. Streams the node appends to itself are left out while it does (`appendingAt`). When Redis goes away the loop retries with backoff (ioredis
 * reconnects) and resumes from the ids it had, so nothing between is skipped.
 */
export class StreamReader {
  private readonly options: StreamReaderOptions;
  /** Stream key → the id to read after. */
  private readonly cursors = new Map<string, string>();
  private readonly running: Promise<void>;
  private closed = false;
  private clientId: number | undefined;
  private blocked = false;
  private wake: (() => void) | undefined;

  constructor(options: StreamReaderOptions) {
    this.options = options;
    this.running = this.loop();
  }

  watch(key: string, afterSeq: number): void {
    if (!this.cursors.has(key)) this.cursors.set(key, `${afterSeq}-0`);
    this.interrupt();
  }

  /** A watched stream is read again from just after `afterSeq` (its cursor moved there, back or on), at once. */
  resume(key: string, afterSeq: number): void {
    if (!this.cursors.has(key)) return;
    this.cursors.set(key, `${afterSeq}-0`);
    this.interrupt();
  }

  unwatch(key: string): void {
    this.cursors.delete(key);
  }

  async close(): Promise<void> {
    this.closed = true;
    this.interrupt();
    this.options.redis.disconnect();
    await this.running;
  }

  private interrupt(): void {
    const resolve = this.wake;
    this.wake = undefined;
    resolve?.();
    if (this.blocked && this.clientId !== undefined) void this.options.control.client("UNBLOCK", this.clientId).catch(() => undefined);
  }

  /** Resolves at the next `interrupt`, or after `timeoutMs` when given. */
  private woken(timeoutMs?: number): Promise<void> {
    return new Promise<void>((resolve) => {
      const timer = timeoutMs === undefined ? undefined : setTimeout(resolve, timeoutMs);
      this.wake = () => {
        clearTimeout(timer);
        resolve();
      };
    });
  }

  private async loop(): Promise<void> {
    let backoff = 50;
    while (!this.closed) {
      if (this.cursors.size === 0) {
        await this.woken();
        continue;
      }
      try {
        const keys: string[] = [];
        for (const key of this.cursors.keys()) {
          const appendingAt = this.options.appendingAt?.(key);
          if (appendingAt === undefined) keys.push(key);
          else this.cursors.set(key, `${appendingAt}-0`);
        }
        if (keys.length === 0) {
          // Only streams this node appends to: nothing to read until the watched set changes or one of them stops being its own.
          await this.woken(this.options.blockMs ?? 1_000);
          continue;
        }
        this.clientId ??= Number(await this.options.redis.client("ID"));
        const ids = keys.map((key) => this.cursors.get(key) ?? "0-0");
        this.blocked = true;
        const result = await this.options.redis.xread("COUNT", 1_000, "BLOCK", this.options.blockMs ?? 1_000, "STREAMS", ...keys, ...ids);
        this.blocked = false;
        backoff = 50;
        for (const [key, entries] of result ?? []) {
          for (const [id, fields] of entries) {
            // A stream unwatched meanwhile keeps no cursor; its entries are no one's.
            if (!this.cursors.has(key)) break;
            this.cursors.set(key, id);
            this.options.deliver(key, seqOf(id), fields);
          }
        }
      } catch (error) {
        this.blocked = false;
        if (this.closed) return;
        // A new connection has a new id.
        this.clientId = undefined;
        this.options.onError(error as Error, "XREAD");
        await new Promise((resolve) => setTimeout(resolve, backoff));
        backoff = Math.min(MAX_BACKOFF_MS, backoff * 2);
      }
    }
  }
}
