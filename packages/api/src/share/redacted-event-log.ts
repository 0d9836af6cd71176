import type { SequencedEvent } from "../router/context.ts";
import type { ShareSessionSource } from "./share-types.ts";
import { LiveEventRedactor } from "./live-redaction.ts";
import type { Redactor } from "./redact.ts";
import { scrubSessionId } from "./session-id-scrub.ts";

/** Redacted events kept per session while someone watches it (beyond this the oldest go). */
const DEFAULT_MAX_ENTRIES = 10_000;

class ShareViewerLagError extends Error {
  override readonly name = "ShareViewerLagError";
  readonly code = "viewer_lag";
}

type LogOptions = { sessions: Pick<ShareSessionSource, "events">; redactor: Redactor; maxEntries?: number };

/**
 * Live-share events redacted once per session, however many viewers watch: one subscription to the session
 * reads its events, redacts them (and drops the session id) into a bounded log, and every viewer replays from
 * that log and waits on it. The subscription starts with the first viewer and ends with the last.
 */
export class RedactedEventLogs {
  private readonly options: LogOptions;
  private readonly logs = new Map<string, SessionLog>();

  constructor(options: LogOptions) {
    this.options = options;
  }

  /**
   * The session's redacted events after `afterSeq`, then live ones, until `signal` aborts. A viewer asking
   * for events older than the shared log holds gets a stream of its own (redacted for it alone).
   */
  async *read(sessionId: string, afterSeq: number, signal: AbortSignal): AsyncGenerator<SequencedEvent> {
    let log = this.logs.get(sessionId);
    if (log === undefined) {
      const created: SessionLog = new SessionLog(sessionId, afterSeq, this.options, () => {
        if (this.logs.get(sessionId) === created) this.logs.delete(sessionId);
      });
      log = created;
      this.logs.set(sessionId, log);
    }
    if (!log.covers(afterSeq)) {
      yield* privateStream(this.options, sessionId, afterSeq, signal);
      return;
    }
    log.viewers++;
    try {
      yield* log.read(afterSeq, signal);
    } finally {
      log.viewers--;
      if (log.viewers === 0) log.stop();
    }
  }
}

async function* privateStream(options: LogOptions, sessionId: string, afterSeq: number, signal: AbortSignal): AsyncGenerator<SequencedEvent> {
  const redactor = new LiveEventRedactor(options.redactor);
  for await (const item of options.sessions.events(sessionId, afterSeq, signal)) {
    for (const event of redactor.redact(item.event)) yield { seq: item.seq, event: scrubSessionId(event, sessionId) };
  }
}

class SessionLog {
  viewers = 0;
  private readonly entries: SequencedEvent[] = [];
  /** Absolute index of `entries[0]`. */
  private firstIndex = 0;
  /** Every event after this seq is (or was) in the log. */
  private coveredAfterSeq: number;
  private readonly maxEntries: number;
  private readonly upstream = new AbortController();
  private readonly waiters = new Set<() => void>();
  private failure: unknown;
  private ended = false;
  private readonly onStop: () => void;

  constructor(sessionId: string, startSeq: number, options: LogOptions, onStop: () => void) {
    this.coveredAfterSeq = startSeq;
    this.maxEntries = options.maxEntries ?? DEFAULT_MAX_ENTRIES;
    this.onStop = onStop;
    void this.pump(sessionId, startSeq, options);
  }

  covers(afterSeq: number): boolean {
    return afterSeq >= this.coveredAfterSeq;
  }

  stop(): void {
    this.upstream.abort();
    this.onStop();
    this.wake();
  }

  async *read(afterSeq: number, signal: AbortSignal): AsyncGenerator<SequencedEvent> {
    let index = this.firstIndex + this.entries.findIndex((entry) => entry.seq > afterSeq);
    if (index < this.firstIndex) index = this.firstIndex + this.entries.length;
    while (!signal.aborted) {
      // A viewer so slow that the log dropped what it had not read yet must reconnect from its last id.
      if (index < this.firstIndex) throw new ShareViewerLagError("This viewer fell too far behind the live session; reconnect.");
      while (index < this.firstIndex + this.entries.length) {
        const entry = this.entries[index - this.firstIndex]!;
        index++;
        yield entry;
        if (signal.aborted) return;
      }
      if (this.failure !== undefined) throw this.failure;
      if (this.ended || this.upstream.signal.aborted) return;
      await this.changed(signal);
    }
  }

  private async pump(sessionId: string, startSeq: number, options: LogOptions): Promise<void> {
    const redactor = new LiveEventRedactor(options.redactor);
    try {
      for await (const item of options.sessions.events(sessionId, startSeq, this.upstream.signal)) {
        for (const event of redactor.redact(item.event)) this.push({ seq: item.seq, event: scrubSessionId(event, sessionId) });
      }
      this.ended = true;
    } catch (error) {
      if (!this.upstream.signal.aborted) this.failure = error;
    } finally {
      // A log that cannot go on is not handed to new viewers.
      if (!this.upstream.signal.aborted) this.onStop();
      this.wake();
    }
  }

  private push(entry: SequencedEvent): void {
    this.entries.push(entry);
    if (this.entries.length > this.maxEntries) {
      const dropped = this.entries.shift()!;
      this.firstIndex++;
      this.coveredAfterSeq = dropped.seq;
    }
    this.wake();
  }

  private changed(signal: AbortSignal): Promise<void> {
    return new Promise((resolve) => {
      const done = () => {
        this.waiters.delete(done);
        signal.removeEventListener("abort", done);
        resolve();
      };
      this.waiters.add(done);
      signal.addEventListener("abort", done, { once: true });
    });
  }

  private wake(): void {
    for (const waiter of [...this.waiters]) waiter();
  }
}
