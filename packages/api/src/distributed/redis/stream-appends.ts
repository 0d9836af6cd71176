import type { Redis } from "ioredis";
import { type FencedAppend, type FencedAppendResult, StreamFence, type StreamEntry } from "./stream-fence.ts";

/** At most this many entries of a session go to Redis in one batch. */
const MAX_APPEND_BATCH = 256;
/** At most this many entries go in one fenced script call (Redis runs nothing else while a script runs). */
const MAX_SCRIPT_ENTRIES = 1_024;

/** An event published on this node and not yet in its stream, with the lease generation it was published under. */
export type UnsentEntry = StreamEntry & { seq: number; generation: number | undefined };

/** What the appends need of a session's channel: its unsent entries, and the newest generation the stream refused. */
export type AppendingChannel = {
  /** Events published here and not yet sent to the stream, in seq order. */
  unsent: UnsentEntry[];
  /** The newest lease generation whose appends the stream's fence refused: nothing under it or older is sent. */
  fencedAt: number;
};

export type StreamAppendsOptions<C extends AppendingChannel> = {
  redis: Redis;
  streamFence: StreamFence;
  /** Entries kept per stream (approximately: `XADD MAXLEN ~`). */
  maxLen: number;
  /** A session's stream key, and its fence's. */
  key: (sessionId: string) => string;
  fenceKey: (sessionId: string) => string;
  /** The stream's fence refused the batch from `seq` on (published under `generation`): another node took the session, at `fence`. */
  fenced: (sessionId: string, channel: C, generation: number, seq: number, fence: number) => Promise<void>;
  onError: (error: Error, context: string) => void;
};

/** Consecutive unsent entries of one session published under one generation: one batch. */
type Append<C> = { sessionId: string; channel: C; generation: number | undefined; entries: UnsentEntry[] };

/** What one command of the pipeline carries: the batches of many sessions in one fenced script call, or one entry without a lease. */
type Sent<C> = { fenced: true; appends: Append<C>[] } | { fenced: false; append: Append<C> };

/**
 * Sends what sessions publish to their streams, one pipeline at a time (one socket write and one round trip for all of
 * them): the first waits for the end of the current turn of the event loop, and each next one carries everything
 * published while the last was on its way. Each session's entries are one command (fenced: one script call for all
 * sessions). At a hundred sessions each streaming a hundred deltas a second this is one write per turn of the loop
 * instead of one per session and delta, with no added wait when all is quiet.
 */
export class StreamAppends<C extends AppendingChannel> {
  private readonly options: StreamAppendsOptions<C>;
  /** The sessions with unsent events, in the order they published their first since the last send. */
  private readonly unsent = new Map<string, C>();
  /** Sending the unsent events; resolves when nothing is left. */
  private sending: Promise<void> | undefined;

  constructor(options: StreamAppendsOptions<C>) {
    this.options = options;
  }

  /** The session's channel has a new unsent entry: it leaves with the next pipeline. */
  queue(sessionId: string, channel: C): void {
    this.unsent.set(sessionId, channel);
    this.sending ??= this.send();
  }

  /** Waits for every append queued so far. */
  async flush(): Promise<void> {
    while (this.sending) await this.sending;
  }

  private async send(): Promise<void> {
    await new Promise<void>((resolve) => setImmediate(resolve));
    try {
      while (this.unsent.size > 0) {
        const appends: Append<C>[] = [];
        for (const [sessionId, channel] of this.unsent) appends.push(...this.batches(sessionId, channel));
        this.unsent.clear();
        if (appends.length > 0) await this.appendAll(appends);
      }
    } finally {
      this.sending = undefined;
    }
  }

  /** A session's unsent events as commands: split where the generation changes or a batch is full; those of a refused generation dropped. */
  private batches(sessionId: string, channel: C): Append<C>[] {
    const appends: Append<C>[] = [];
    const unsent = channel.unsent;
    channel.unsent = [];
    for (let start = 0; start < unsent.length; ) {
      const generation = unsent[start]!.generation;
      let end = start + 1;
      while (end < unsent.length && end - start < MAX_APPEND_BATCH && unsent[end]!.generation === generation) end++;
      // Published under a generation the stream has refused since: the fence would refuse these too.
      if (generation === undefined || generation > channel.fencedAt) appends.push({ sessionId, channel, generation, entries: unsent.slice(start, end) });
      start = end;
    }
    return appends;
  }

  private async appendAll(appends: readonly Append<C>[]): Promise<void> {
    const { redis, streamFence, maxLen, key, onError } = this.options;
    const sent = commands(appends);
    let answers: Array<[Error | null, unknown]>;
    const only = sent.length === 1 ? sent[0] : undefined;
    if (only?.fenced) {
      // The usual case with leases: one script call for every session, sent as it is (a pipeline of one costs more to build than to send).
      answers = await streamFence
        .append(
          maxLen,
          only.appends.map((append) => this.fencedPart(append)),
        )
        .then(
          (answer): Array<[Error | null, unknown]> => [[null, answer]],
          (error: Error): Array<[Error | null, unknown]> => [[error, undefined]],
        );
    } else {
      const pipeline = redis.pipeline();
      for (const command of sent) {
        if (command.fenced)
          streamFence.appendTo(
            pipeline,
            maxLen,
            command.appends.map((append) => this.fencedPart(append)),
          );
        else {
          const { sessionId, entries } = command.append;
          pipeline.xadd(key(sessionId), "MAXLEN", "~", maxLen, entries[0]!.id, "e", entries[0]!.payload);
        }
      }
      try {
        answers = (await pipeline.exec()) ?? [];
      } catch (error) {
        for (const append of appends) onError(error as Error, what(key(append.sessionId), append.entries));
        return;
      }
    }
    // In order: a refusal is handled before the session's next batch is looked at.
    for (const [index, command] of sent.entries()) {
      const [error, answer] = answers[index] ?? [new Error("no answer from Redis"), undefined];
      const batches = command.fenced ? command.appends : [command.append];
      if (error) {
        for (const { sessionId, entries } of batches) onError(error, what(key(sessionId), entries));
        continue;
      }
      if (!command.fenced) continue;
      let results: FencedAppendResult[];
      try {
        results = StreamFence.results(answer);
      } catch (unreadable) {
        for (const { sessionId, entries } of batches) onError(unreadable as Error, what(key(sessionId), entries));
        continue;
      }
      for (const [part, { sessionId, channel, generation, entries }] of command.appends.entries()) {
        const result = results[part];
        const context = what(key(sessionId), entries);
        if (!result) onError(new Error("the fenced append gave no answer for this session"), context);
        else if ("fence" in result)
          await this.options
            .fenced(sessionId, channel, generation as number, entries[0]!.seq, result.fence)
            .catch((failure: Error) => onError(failure, context));
        else for (const refusal of result.refused) onError(new Error(refusal), context);
      }
    }
  }

  private fencedPart({ sessionId, generation, entries }: Append<C>): FencedAppend {
    return { stream: this.options.key(sessionId), fence: this.options.fenceKey(sessionId), generation: generation as number, entries };
  }
}

/** The pipeline's commands: the fenced batches of all sessions in as few script calls as `MAX_SCRIPT_ENTRIES` allows; without a lease, an XADD per entry. */
function commands<C>(appends: readonly Append<C>[]): Sent<C>[] {
  const sent: Sent<C>[] = [];
  let script: Append<C>[] = [];
  let scriptEntries = 0;
  for (const append of appends) {
    if (append.generation === undefined) {
      for (const entry of append.entries) sent.push({ fenced: false, append: { ...append, entries: [entry] } });
      continue;
    }
    if (scriptEntries > 0 && scriptEntries + append.entries.length > MAX_SCRIPT_ENTRIES) {
      sent.push({ fenced: true, appends: script });
      script = [];
      scriptEntries = 0;
    }
    script.push(append);
    scriptEntries += append.entries.length;
  }
  if (script.length > 0) sent.push({ fenced: true, appends: script });
  return sent;
}

/** How a failed append is named in the log: `XADD <key> <first id>[..<last id>]`. */
function what(key: string, entries: readonly StreamEntry[]): string {
  return `XADD ${key} ${entries[0]!.id}${entries.length > 1 ? `..${entries.at(-1)!.id}` : ""}`;
}
