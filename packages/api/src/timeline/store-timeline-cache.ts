import { addTranscriptLine, type TranscriptLinesReport } from "@cairn/core/node";
import type { TranscriptLine } from "@cairn/core/schema";
import type { TimelineSource } from "@cairn/core/timeline";
import { ApiError } from "../router/errors.ts";
import type { SessionStore, StoredLineTexts } from "../session-store/session-store.ts";
import { assembleTimelineSource, type LoadTimelineSourceOptions } from "./source.ts";
import { type CachedTimeline, cachedTimelineOf, type TimelineCachePort, untilAborted } from "./timeline-cache.ts";

/** A store whose lines are rows, not files (PostgreSQL): read by count, since rows are only ever appended. */
export type LineStore = Required<Pick<SessionStore, "lineTexts">>;

/** One thread's lines held so far (the session's own, or a subagent's sidechain): `total` rows read. */
type HeldLines = { total: number; lines: TranscriptLine[]; report: TranscriptLinesReport };
type HeldSidechain = HeldLines & { description: string | undefined };

/** The lines of a session held so far, its sidechains' by agent id, and the timeline built from them. */
type Held = HeldLines & { sidechains: Map<string, HeldSidechain>; built: CachedTimeline };

/**
 * Built timelines of sessions kept in a store of rows (distributed mode: the transcript is in PostgreSQL, on no
 * node's disk), so every node draws the same, current timeline. The version is the session's row count: rows are
 * only appended (a rewind or a compaction appends too), so the count names the content. Each look asks the store
 * for the rows after the count held (nothing comes back while nothing was written) and builds again only when some came.
 */
export class StoreTimelineCache implements TimelineCachePort {
  private readonly store: LineStore;
  private readonly workspaceRoot: string;
  private readonly maxEntries: number;
  private readonly held = new Map<string, Held>();
  private readonly refreshing = new Map<string, Promise<Held>>();

  constructor(store: LineStore, workspaceRoot: string, options: { maxEntries?: number } = {}) {
    this.store = store;
    this.workspaceRoot = workspaceRoot;
    this.maxEntries = options.maxEntries ?? 2;
  }

  get(sessionId: string, signal?: AbortSignal): Promise<CachedTimeline> {
    return untilAborted(
      this.refresh(sessionId).then((held) => held.built),
      signal,
    );
  }

  /** The whole timeline: rows come from one query, so there is no first part to show sooner. */
  first(sessionId: string, _knownVersion: string | undefined, signal?: AbortSignal): Promise<CachedTimeline> {
    return this.get(sessionId, signal);
  }

  isCurrent(sessionId: string, version: string): boolean {
    return this.held.get(sessionId)?.built.version === version;
  }

  holding(sessionId: string, _eventId: string, signal?: AbortSignal): Promise<CachedTimeline> {
    return this.get(sessionId, signal);
  }

  /** One look at the store per session at a time; callers meanwhile share it. */
  private refresh(sessionId: string): Promise<Held> {
    let running = this.refreshing.get(sessionId);
    if (!running) {
      running = this.read(sessionId).finally(() => this.refreshing.delete(sessionId));
      this.refreshing.set(sessionId, running);
    }
    return running;
  }

  private async read(sessionId: string): Promise<Held> {
    const previous = this.held.get(sessionId);
    const heldSidechains = new Map([...(previous?.sidechains ?? [])].map(([agentId, sidechain]) => [agentId, sidechain.total]));
    const read = await this.store.lineTexts(sessionId, previous?.total ?? 0, heldSidechains);
    if (!read) throw new ApiError("session_not_found", `No session ${sessionId}`);
    if (previous && versionOf(read) === previous.built.version) {
      this.keep(sessionId, previous);
      return previous;
    }
    const { source, ...lines } = rowsSource(this.workspaceRoot, sessionId, read, previous);
    const held: Held = { ...lines, built: cachedTimelineOf(source, versionOf(read), true) };
    this.keep(sessionId, held);
    return held;
  }

  private keep(sessionId: string, held: Held): void {
    this.held.delete(sessionId);
    this.held.set(sessionId, held);
    while (this.held.size > this.maxEntries) this.held.delete(this.held.keys().next().value!);
  }
}

/** What the timeline draws of a session kept in a store of rows (the HTML export, a share's timeline): as `loadTimelineSource` reads files. */
export async function storeTimelineSource(
  store: LineStore,
  workspaceRoot: string,
  sessionId: string,
  options: LoadTimelineSourceOptions = {},
): Promise<TimelineSource> {
  const read = await store.lineTexts(sessionId, 0);
  options.signal?.throwIfAborted();
  if (!read) throw new ApiError("session_not_found", `No session ${sessionId}`);
  return rowsSource(workspaceRoot, sessionId, read, undefined, options.messageUuids).source;
}

/** The version of what was read: the session's row count and its sidechains' (rows are only appended, so counts name the content). */
function versionOf(read: StoredLineTexts): string {
  const sidechainRows = read.sidechains.reduce((sum, sidechain) => sum + sidechain.total, 0);
  return sidechainRows === 0 ? `rows${read.total}` : `rows${read.total}.${read.sidechains.length}.${sidechainRows}`;
}

function byFileName(left: string, right: string): number {
  const leftName = `agent-${left}.jsonl`;
  const rightName = `agent-${right}.jsonl`;
  return leftName < rightName ? -1 : leftName > rightName ? 1 : 0;
}

/** One thread's lines held so far (`before`) with the rows `texts` read after them. */
function extend(sessionId: string, before: HeldLines | undefined, texts: readonly string[], total: number): HeldLines {
  const lines = [...(before?.lines ?? [])];
  const report: TranscriptLinesReport = { ...(before?.report ?? { lines: 0, malformedLines: 0, tornTail: false, unknownLines: 0 }) };
  for (const text of texts) addTranscriptLine(text, sessionId, lines, report);
  return { total, lines, report };
}

/**
 * The lines held so far (`before`) with the rows read after them, the session's and each sidechain's, and what the
 * timeline draws of them: the same source the JSONL files give (`loadTimelineSource`), sidechains in agent id order.
 */
function rowsSource(
  workspaceRoot: string,
  sessionId: string,
  read: StoredLineTexts,
  before: Pick<Held, "lines" | "report" | "total" | "sidechains"> | undefined,
  messageUuids?: LoadTimelineSourceOptions["messageUuids"],
): HeldLines & { sidechains: Map<string, HeldSidechain>; source: TimelineSource } {
  const main = extend(sessionId, before, read.texts, read.total);
  const sidechains = new Map<string, HeldSidechain>();
  for (const sidechain of read.sidechains) {
    const held = before?.sidechains.get(sidechain.agentId);
    const unchanged = held !== undefined && held.total === sidechain.total;
    sidechains.set(sidechain.agentId, unchanged ? held : { ...extend(sessionId, held, sidechain.texts, sidechain.total), description: sidechain.description });
  }
  const source = assembleTimelineSource({
    sessionId,
    workspaceRoot,
    mainLines: main.lines,
    // In the order the files are read in (their names sorted), so both stores draw the lanes alike.
    sidechainFiles: [...sidechains]
      .sort(([left], [right]) => byFileName(left, right))
      .map(([agentId, sidechain]) => ({
        agentId,
        ...(sidechain.description ? { description: sidechain.description } : {}),
        lines: sidechain.lines,
      })),
    reports: [main.report, ...[...sidechains.values()].map((sidechain) => sidechain.report)],
    ...(messageUuids ? { messageUuids } : {}),
  });
  return { ...main, sidechains, source };
}
