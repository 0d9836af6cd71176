import {
  compactHead,
  compactPage,
  runningEndOffsets,
  type TimelineDetail,
  type TimelineEvent,
  type TimelineSearchIndex,
  type TimelineSource,
} from "@cairn/core/timeline";
import { type ImportTarget, importTranscriptText } from "./import-transcript.ts";
import { loadTimelineSource } from "./source.ts";
import { TimelineCache, type CachedTimeline, type TimelineCachePort } from "./timeline-cache.ts";
import { buildSearchIndex } from "./search-index-build.ts";
import { type LineStore, StoreTimelineCache, storeTimelineSource } from "./store-timeline-cache.ts";
import type { FirstDetail, ImportedTranscript, TimelinePageAnswer, TimelinePort, TimelineViewAnswer } from "./timeline-port.ts";

/** Where the transcripts are; an import is written through `transcripts` when given (`ImportTarget`). */
type Where = ImportTarget;

/** A first look at a timeline larger than this gets its first events at once (a screenful and more: some 70 KB to send, parse and draw), then the rest in pages. */
const DEFAULT_HEAD_EVENTS = 500;
/** How long a built timeline stays current before its search index is made in the background. */
const DEFAULT_INDEX_DELAY_MS = 1_000;
/** A first look carries the details of this many first events at most (a screenful of the list), in this much JSON. */
const FIRST_DETAIL_EVENTS = 30;
const FIRST_DETAIL_CHARS = 64 * 1024;
/** Events per page of the rest: some 1.4 MB of JSON, parsed by the page in a few tens of milliseconds between two keys. */
const DEFAULT_PAGE_EVENTS = 10_000;

/**
 * The timeline port over this workspace's transcripts (a `Runtime` is a `Where`): timelines are built
 * here, cached per transcript, and sent compact (a large one first in part, then whole); details answer from
 * the newest build holding the event, search from the whole timeline.
 */
export class TimelineService implements TimelinePort {
  private readonly runtime: Where;
  private readonly cache: TimelineCachePort;
  private readonly loadSource: (sessionId: string, signal?: AbortSignal) => Promise<TimelineSource>;
  private readonly headEvents: number;
  private readonly pageEvents: number;
  private readonly indexDelayMs: number;

  /** `rows`: the timelines of a store of rows (distributed mode), built from it instead of the transcript files. */
  constructor(runtime: Where, options: { partialBytes?: number; headEvents?: number; pageEvents?: number; indexDelayMs?: number; rows?: LineStore } = {}) {
    this.runtime = runtime;
    const rows = options.rows;
    this.cache = rows ? new StoreTimelineCache(rows, runtime.workspaceRoot) : new TimelineCache(runtime, options);
    this.loadSource = rows
      ? (sessionId, signal) => storeTimelineSource(rows, runtime.workspaceRoot, sessionId, signal ? { signal } : {})
      : (sessionId, signal) => loadTimelineSource(this.runtime, sessionId, signal ? { signal } : {});
    this.headEvents = options.headEvents ?? DEFAULT_HEAD_EVENTS;
    this.pageEvents = options.pageEvents ?? DEFAULT_PAGE_EVENTS;
    this.indexDelayMs = options.indexDelayMs ?? DEFAULT_INDEX_DELAY_MS;
  }

  source(sessionId: string, signal?: AbortSignal): Promise<TimelineSource> {
    return this.loadSource(sessionId, signal);
  }

  async view(sessionId: string, knownVersion: string | undefined, signal?: AbortSignal): Promise<TimelineViewAnswer> {
    const cached = await this.cache.first(sessionId, knownVersion, signal);
    if (cached.version === knownVersion) return { changed: false, version: cached.version };
    // A first look carries its first events' details: the first one opened needs no request (which, on a cold open,
    // would wait for the build of the rest holding up the thread).
    const details = knownVersion === undefined ? (cached.firstDetailsJson ??= firstDetailsJson(cached.timeline.events)) : "";
    const withDetails = details === "" ? {} : { detailsJson: details };
    // A large timeline goes out as its first events (a fraction of the bytes to send and parse), the rest in pages.
    const total = cached.compact.columns.count;
    if (cached.complete) this.indexLater(sessionId, cached);
    if (cached.complete && total > this.headEvents) {
      cached.headJson ??= JSON.stringify(compactHead(cached.compact, this.headEvents, `head-${cached.version}`));
      return { changed: true, timelineJson: cached.headJson, complete: false, rest: { version: cached.version, from: this.headEvents, total }, ...withDetails };
    }
    cached.json ??= JSON.stringify(cached.compact);
    return { changed: true, timelineJson: cached.json, complete: cached.complete, ...withDetails };
  }

  async page(sessionId: string, version: string, from: number, signal?: AbortSignal): Promise<TimelinePageAnswer> {
    const cached = await this.cache.get(sessionId, signal);
    if (cached.version !== version) return { stale: true };
    // Made once per version and offset: the next viewer of the same version gets the same text at no cost.
    const pages = (cached.pageJson ??= new Map());
    let pageJson = pages.get(from);
    if (pageJson === undefined) {
      cached.runningEnds ??= runningEndOffsets(cached.compact);
      pageJson = JSON.stringify(compactPage(cached.compact, from, from + this.pageEvents, cached.runningEnds));
      pages.set(from, pageJson);
    }
    return { stale: false, pageJson };
  }

  async detail(sessionId: string, eventId: string, signal?: AbortSignal): Promise<{ version: string; detail: TimelineDetail } | null> {
    const cached = await this.cache.holding(sessionId, eventId, signal);
    const index = cached.indexOf.get(eventId);
    const event = index === undefined ? undefined : cached.timeline.events[index];
    return event ? { version: cached.version, detail: event.detail } : null;
  }

  async search(sessionId: string, query: string, signal?: AbortSignal): Promise<{ version: string; indices: number[] }> {
    const cached = await this.cache.get(sessionId, signal);
    // A background build given up meanwhile (a newer version came) is made again here, for this version.
    const index = await this.searchIndex(cached, () => true).catch(() => this.searchIndex(cached, () => true));
    return { version: cached.version, indices: index.search(query) };
  }

  /** The timeline's search index, made once (in slices); `wanted` false between two slices gives it up. */
  private searchIndex(cached: CachedTimeline, wanted: () => boolean): Promise<TimelineSearchIndex> {
    if (!cached.searchIndex) {
      const building = buildSearchIndex(cached.timeline.events, wanted);
      cached.searchIndex = building;
      building.catch(() => {
        if (cached.searchIndex === building) delete cached.searchIndex;
      });
    }
    return cached.searchIndex;
  }

  /**
   * The search index of a whole timeline is made in the background once its version has stayed current a moment,
   * so a first search finds it ready, while a growing live session does not index every version it passes through.
   */
  private indexLater(sessionId: string, cached: CachedTimeline): void {
    if (cached.searchIndex || cached.indexScheduled) return;
    cached.indexScheduled = true;
    const current = () => this.cache.isCurrent(sessionId, cached.version);
    const timer = setTimeout(() => {
      if (current()) this.searchIndex(cached, current).catch(() => undefined);
    }, this.indexDelayMs);
    timer.unref?.();
  }

  importTranscript(jsonl: string, name: string | undefined, signal?: AbortSignal): Promise<ImportedTranscript> {
    return importTranscriptText(this.runtime, jsonl, { ...(name ? { name } : {}), ...(signal ? { signal } : {}) });
  }
}

/** `TimelineViewAnswer.detailsJson` for `events`: the first ones whose details are final, while they fit; "" for none. */
function firstDetailsJson(events: readonly Pick<TimelineEvent, "id" | "status" | "detail">[]): string {
  const parts: string[] = [];
  let chars = 2;
  for (const event of events.slice(0, FIRST_DETAIL_EVENTS)) {
    // An unfinished or partial event's details still change as its session goes on: fetched when opened.
    if (event.status === "unfinished" || event.status === "partial") continue;
    const part = `${JSON.stringify(event.id)}:${JSON.stringify({ status: event.status, detail: event.detail } satisfies FirstDetail)}`;
    if (chars + part.length + 1 > FIRST_DETAIL_CHARS) break;
    parts.push(part);
    chars += part.length + 1;
  }
  return parts.length === 0 ? "" : `{${parts.join(",")}}`;
}
