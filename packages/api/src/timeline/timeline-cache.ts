import { readdir, stat } from "node:fs/promises";
import { join } from "node:path";
import { readTranscriptLines, sessionTranscriptPath, type TranscriptLinesReport } from "@cairn/core/node";
import type { TranscriptLine } from "@cairn/core/schema";
import { buildTimeline, compactTimeline, type CompactTimeline, type Timeline, type TimelineSearchIndex, type TimelineSource } from "@cairn/core/timeline";
import { ApiError } from "../router/errors.ts";
import { AGENT_FILE, assembleTimelineSource, readSidechainDescription, subagentDirectory, type TimelineStoreLocation } from "./source.ts";

/** One transcript file as last read: its size and mtime say whether it changed, `endOffset` where to read on. */
type TrackedFile = {
  size: number;
  mtimeMs: number;
  /** After the last line that ended with a newline: a file that grew is read from here. */
  endOffset: number;
  lines: TranscriptLine[];
  report: TranscriptLinesReport;
};

type SidechainFile = TrackedFile & { agentId: string; description: string | undefined };

export type CachedTimeline = {
  version: string;
  timeline: Timeline;
  compact: CompactTimeline;
  /** Event id → index, for detail requests. */
  indexOf: ReadonlyMap<string, number>;
  /** False for the first part of a large transcript, shown while the rest is read. */
  complete: boolean;
  /** `compact` as JSON, the JSON of its first events, and of its pages by their first event, made when first sent. */
  json?: string;
  headJson?: string;
  /** The details sent with a first look (`TimelineViewAnswer.detailsJson`), "" when there are none. */
  firstDetailsJson?: string;
  pageJson?: Map<number, string>;
  /** `runningEndOffsets` of `compact`, made at the first page: each later page costs only its own events. */
  runningEnds?: Float64Array;
  /** Its events' search texts, made when first needed (or in the background), and whether that is planned. */
  searchIndex?: Promise<TimelineSearchIndex>;
  indexScheduled?: boolean;
};

type Entry = CachedTimeline & { main: TrackedFile; sidechains: Map<string, SidechainFile> };

/** What the timeline service asks of a cache of built timelines (files here; rows in `StoreTimelineCache`). */
export type TimelineCachePort = Pick<TimelineCache, "get" | "first" | "isCurrent" | "holding">;

/** A refresh under way: its end, and the first part of the timeline once that is built (undefined when there is none). */
class Refresh {
  readonly done: Promise<Entry>;
  readonly partial: Promise<Entry | undefined>;
  partialEntry: Entry | undefined;

  constructor(run: (onPartial: (entry: Entry) => void) => Promise<Entry>) {
    let publish: (entry: Entry | undefined) => void = () => undefined;
    this.partial = new Promise((resolve) => {
      publish = resolve;
    });
    this.done = run((entry) => {
      this.partialEntry = entry;
      publish(entry);
    }).finally(() => publish(undefined));
    // A viewer served the first part may be gone when the rest fails: the failure reaches whoever waits for it.
    this.done.catch(() => undefined);
  }
}

/**
 * How much of a large transcript is read before its first part is shown: a thousand events or so, built in
 * well under a tenth of a second, so the page is usable while the rest (possibly hundreds of MB) is read.
 */
const DEFAULT_PARTIAL_BYTES = 128 * 1024;

/**
 * Built timelines per session transcript, kept until the transcript's size or mtime (or a subagent
 * file's) changes. A transcript that only grew — a live session appending lines — is extended: only
 * the new bytes are read and parsed, then the timeline is rebuilt from the lines in memory. A large
 * transcript read from scratch is shown in two steps: its first `partialBytes`, then the whole.
 */
export class TimelineCache {
  private readonly where: TimelineStoreLocation;
  private readonly maxEntries: number;
  private readonly partialBytes: number;
  private readonly entries = new Map<string, Entry>();
  private readonly refreshing = new Map<string, Refresh>();

  constructor(where: TimelineStoreLocation, options: { maxEntries?: number; partialBytes?: number } = {}) {
    this.where = where;
    this.maxEntries = options.maxEntries ?? 2;
    this.partialBytes = options.partialBytes ?? DEFAULT_PARTIAL_BYTES;
  }

  /** The session's whole timeline as its files are now. Concurrent callers share one refresh. */
  get(sessionId: string, signal?: AbortSignal): Promise<CachedTimeline> {
    return untilAborted(this.start(sessionId).done, signal);
  }

  /**
   * What a viewer should see next: the first part of a large transcript while the rest is still being read
   * (unless the viewer already has that part), else the whole timeline.
   */
  async first(sessionId: string, knownVersion: string | undefined, signal?: AbortSignal): Promise<CachedTimeline> {
    const refresh = this.start(sessionId);
    const soonest = await untilAborted(Promise.race([refresh.done, refresh.partial.then((partial) => partial ?? refresh.done)]), signal);
    if (soonest.complete || soonest.version !== knownVersion) return soonest;
    return untilAborted(refresh.done, signal);
  }

  /** Whether `version` is the session's newest built timeline. */
  isCurrent(sessionId: string, version: string): boolean {
    return this.entries.get(sessionId)?.version === version;
  }

  /** The newest timeline holding the event: the first part being shown, if it has it, else the whole. */
  async holding(sessionId: string, eventId: string, signal?: AbortSignal): Promise<CachedTimeline> {
    const partial = this.refreshing.get(sessionId)?.partialEntry;
    if (partial?.indexOf.has(eventId)) return partial;
    return this.get(sessionId, signal);
  }

  /**
   * The refresh of the session under way, or a new one. It belongs to no request (later callers share it, and
   * the first may go away once it has the first part), so it takes no caller's signal.
   */
  private start(sessionId: string): Refresh {
    const running = this.refreshing.get(sessionId);
    if (running) return running;
    const refresh = new Refresh((onPartial) => this.refresh(sessionId, onPartial).finally(() => this.refreshing.delete(sessionId)));
    this.refreshing.set(sessionId, refresh);
    return refresh;
  }

  private async refresh(sessionId: string, onPartial: (entry: Entry) => void): Promise<Entry> {
    const path = sessionTranscriptPath({ cairnHome: this.where.cairnHome, cwd: this.where.workspaceRoot, sessionId });
    const previous = this.entries.get(sessionId);
    let mainStat: { size: number; mtimeMs: number };
    try {
      mainStat = await stat(path);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === "ENOENT") throw new ApiError("session_not_found", `No session ${sessionId}`, { cause: error });
      throw error;
    }
    const directory = subagentDirectory(path, sessionId);
    const names = await readdir(directory).then(
      (found) => found.filter((name) => AGENT_FILE.test(name)).sort(),
      (error: NodeJS.ErrnoException) => {
        if (error.code === "ENOENT") return [];
        throw error;
      },
    );
    const sideStats = await Promise.all(names.map((name) => stat(join(directory, name))));
    let changed = !previous || previous.sidechains.size !== names.length;
    const sidechains = new Map<string, SidechainFile>();
    for (const [position, name] of names.entries()) {
      const before = previous?.sidechains.get(name);
      const tracked = await this.track(join(directory, name), sessionId, before, sideStats[position]!);
      if (tracked === before && before) {
        sidechains.set(name, before);
        continue;
      }
      changed = true;
      const description = before?.description ?? (await readSidechainDescription(join(directory, name)));
      sidechains.set(name, { ...tracked, agentId: AGENT_FILE.exec(name)![1]!, description });
    }
    let before = previous?.main;
    const unchanged = before !== undefined && before.size === mainStat.size && before.mtimeMs === mainStat.mtimeMs;
    if (!unchanged && !extends_(before, mainStat)) before = undefined;
    const from = unchanged ? mainStat.size : (before?.endOffset ?? 0);
    if (mainStat.size - from > this.partialBytes * 2) {
      // Far to read: show the first part while the rest is read.
      const head = await this.track(path, sessionId, before, mainStat, from + this.partialBytes);
      onPartial(this.entryOf(sessionId, head, sidechains, false));
      before = head;
    }
    const main = await this.track(path, sessionId, before, mainStat);
    if (main !== previous?.main) changed = true;
    if (!changed && previous) {
      this.touch(sessionId, previous);
      return previous;
    }
    const entry = this.entryOf(sessionId, main, sidechains, true);
    this.touch(sessionId, entry);
    return entry;
  }

  private entryOf(sessionId: string, main: TrackedFile, sidechains: Map<string, SidechainFile>, complete: boolean): Entry {
    const source = assembleTimelineSource({
      sessionId,
      workspaceRoot: this.where.workspaceRoot,
      mainLines: main.lines,
      sidechainFiles: [...sidechains.values()].map((file) => ({
        agentId: file.agentId,
        ...(file.description ? { description: file.description } : {}),
        lines: file.lines,
      })),
      reports: [main.report, ...[...sidechains.values()].map((file) => file.report)],
    });
    const files = [main, ...sidechains.values()].map((file) => `${file.size}.${Math.round(file.mtimeMs)}`).join("-");
    const version = complete ? files : `part${main.endOffset}-${files}`;
    return { ...cachedTimelineOf(source, version, complete), main, sidechains };
  }

  /**
   * The file as it is now (or, with `upTo`, its lines that start before that offset): `before` itself when
   * unchanged, extended when it only grew, else read whole.
   */
  private async track(
    path: string,
    sessionId: string,
    before: TrackedFile | undefined,
    now: { size: number; mtimeMs: number },
    upTo?: number,
  ): Promise<TrackedFile> {
    if (before && before.size === now.size && before.mtimeMs === now.mtimeMs) return before;
    const options = { sessionId, ...(upTo === undefined ? {} : { upTo }) };
    // Growth past a last line that was whole: only the appended bytes are new.
    if (before && extends_(before, now)) {
      const added = await readTranscriptLines(path, { ...options, from: before.endOffset });
      return {
        // A part read up to `upTo` counts as a file of that size: the next look at the file reads on from there.
        size: upTo === undefined ? added.size : added.endOffset,
        mtimeMs: now.mtimeMs,
        endOffset: added.endOffset,
        lines: [...before.lines, ...added.lines],
        report: {
          lines: before.report.lines + added.report.lines,
          malformedLines: before.report.malformedLines + added.report.malformedLines,
          tornTail: added.report.tornTail,
          unknownLines: before.report.unknownLines + added.report.unknownLines,
        },
      };
    }
    const read = await readTranscriptLines(path, options);
    return { size: upTo === undefined ? read.size : read.endOffset, mtimeMs: now.mtimeMs, endOffset: read.endOffset, lines: read.lines, report: read.report };
  }

  private touch(sessionId: string, entry: Entry): void {
    this.entries.delete(sessionId);
    this.entries.set(sessionId, entry);
    while (this.entries.size > this.maxEntries) this.entries.delete(this.entries.keys().next().value!);
  }
}

/** Whether `now` is `before` with lines appended after its last whole line. */
function extends_(before: TrackedFile | undefined, now: { size: number }): before is TrackedFile {
  return before !== undefined && now.size > before.size && before.endOffset === before.size;
}

/** The timeline built from `source`, with what every look at it needs (its compact form, event ids to indexes). */
export function cachedTimelineOf(source: TimelineSource, version: string, complete: boolean): CachedTimeline {
  const timeline = buildTimeline(source);
  return {
    version,
    timeline,
    compact: compactTimeline(timeline, version),
    indexOf: new Map(timeline.events.map((event) => [event.id, event.index])),
    complete,
  };
}

/** `promise`, or a rejection when `signal` aborts first (the work itself goes on for other callers). */
export function untilAborted<T>(promise: Promise<T>, signal: AbortSignal | undefined): Promise<T> {
  if (!signal) return promise;
  if (signal.aborted) return Promise.reject(signal.reason);
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(signal.reason);
    signal.addEventListener("abort", onAbort, { once: true });
    promise.then(resolve, reject).finally(() => signal.removeEventListener("abort", onAbort));
  });
}
