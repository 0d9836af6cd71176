import { readdir, stat } from "node:fs/promises";
import { join } from "node:path";
import { readTranscriptLines, sessionTranscriptPath, type TranscriptLinesReport } from "@cairn/core/node";
import type { TranscriptLine } from "@cairn/core/schema";
import { buildTimeline, compactTimeline, type CompactTimeline, type Timeline } from "@cairn/core/timeline";
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
};

type Entry = CachedTimeline & { main: TrackedFile; sidechains: Map<string, SidechainFile> };

/**
 * Built timelines per session transcript, kept until the transcript's size or mtime (or a subagent
 * file's) changes. A transcript that only grew — a live session appending lines — is extended: only
 * the new bytes are read and parsed, then the timeline is rebuilt from the lines in memory.
 */
export class TimelineCache {
  private readonly where: TimelineStoreLocation;
  private readonly maxEntries: number;
  private readonly entries = new Map<string, Entry>();
  private readonly refreshing = new Map<string, Promise<Entry>>();

  constructor(where: TimelineStoreLocation, options: { maxEntries?: number } = {}) {
    this.where = where;
    this.maxEntries = options.maxEntries ?? 2;
  }

  /** The session's timeline as its files are now. Concurrent callers share one refresh. */
  get(sessionId: string, signal?: AbortSignal): Promise<CachedTimeline> {
    const running = this.refreshing.get(sessionId);
    if (running) return running;
    const refresh = this.refresh(sessionId, signal).finally(() => this.refreshing.delete(sessionId));
    this.refreshing.set(sessionId, refresh);
    return refresh;
  }

  private async refresh(sessionId: string, signal: AbortSignal | undefined): Promise<Entry> {
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
    const main = await this.track(path, sessionId, previous?.main, mainStat, signal);
    if (main !== previous?.main) changed = true;
    const sidechains = new Map<string, SidechainFile>();
    for (const [position, name] of names.entries()) {
      const before = previous?.sidechains.get(name);
      const tracked = await this.track(join(directory, name), sessionId, before, sideStats[position]!, signal);
      if (tracked === before && before) {
        sidechains.set(name, before);
        continue;
      }
      changed = true;
      const description = before?.description ?? (await readSidechainDescription(join(directory, name)));
      sidechains.set(name, { ...tracked, agentId: AGENT_FILE.exec(name)![1]!, description });
    }
    if (!changed && previous) {
      this.touch(sessionId, previous);
      return previous;
    }
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
    const timeline = buildTimeline(source);
    const version = [main, ...sidechains.values()].map((file) => `${file.size}.${Math.round(file.mtimeMs)}`).join("-");
    const entry: Entry = {
      version,
      timeline,
      compact: compactTimeline(timeline, version),
      indexOf: new Map(timeline.events.map((event) => [event.id, event.index])),
      main,
      sidechains,
    };
    this.touch(sessionId, entry);
    return entry;
  }

  /** The file as it is now: `before` itself when unchanged, extended when it only grew, else read whole. */
  private async track(
    path: string,
    sessionId: string,
    before: TrackedFile | undefined,
    now: { size: number; mtimeMs: number },
    signal: AbortSignal | undefined,
  ): Promise<TrackedFile> {
    if (before && before.size === now.size && before.mtimeMs === now.mtimeMs) return before;
    const options = { sessionId, ...(signal ? { signal } : {}) };
    // Growth past a last line that was whole: only the appended bytes are new.
    if (before && now.size > before.size && before.endOffset === before.size) {
      const added = await readTranscriptLines(path, { ...options, from: before.endOffset });
      return {
        size: added.size,
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
    return { size: read.size, mtimeMs: now.mtimeMs, endOffset: read.endOffset, lines: read.lines, report: read.report };
  }

  private touch(sessionId: string, entry: Entry): void {
    this.entries.delete(sessionId);
    this.entries.set(sessionId, entry);
    while (this.entries.size > this.maxEntries) this.entries.delete(this.entries.keys().next().value!);
  }
}
