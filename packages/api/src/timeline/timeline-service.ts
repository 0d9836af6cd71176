import { compactHead, compactPage, searchTimelineEvents, type TimelineDetail, type TimelineSource } from "@cairn/core/timeline";
import { importTranscriptText } from "./import-transcript.ts";
import { loadTimelineSource, type TimelineStoreLocation } from "./source.ts";
import { TimelineCache } from "./timeline-cache.ts";
import type { ImportedTranscript, TimelinePageAnswer, TimelinePort, TimelineViewAnswer } from "./timeline-port.ts";

type Where = TimelineStoreLocation & { version: string };

/** A first look at a timeline larger than this gets its first events at once, then the rest in pages. */
const DEFAULT_HEAD_EVENTS = 2_000;
/** Events per page of the rest: some 3 MB of JSON, parsed and added by the page in a few tens of milliseconds. */
const DEFAULT_PAGE_EVENTS = 20_000;

/**
 * The timeline port over this workspace's transcripts (a `Runtime` is a `Where`): timelines are built
 * here, cached per transcript, and sent compact (a large one first in part, then whole); details answer from
 * the newest build holding the event, search from the whole timeline.
 */
export class TimelineService implements TimelinePort {
  private readonly runtime: Where;
  private readonly cache: TimelineCache;
  private readonly headEvents: number;
  private readonly pageEvents: number;

  constructor(runtime: Where, options: { partialBytes?: number; headEvents?: number; pageEvents?: number } = {}) {
    this.runtime = runtime;
    this.cache = new TimelineCache(runtime, options);
    this.headEvents = options.headEvents ?? DEFAULT_HEAD_EVENTS;
    this.pageEvents = options.pageEvents ?? DEFAULT_PAGE_EVENTS;
  }

  source(sessionId: string, signal?: AbortSignal): Promise<TimelineSource> {
    return loadTimelineSource(this.runtime, sessionId, signal ? { signal } : {});
  }

  async view(sessionId: string, knownVersion: string | undefined, signal?: AbortSignal): Promise<TimelineViewAnswer> {
    const cached = await this.cache.first(sessionId, knownVersion, signal);
    if (cached.version === knownVersion) return { changed: false, version: cached.version };
    // A large timeline goes out as its first events (a fraction of the bytes to send and parse), the rest in pages.
    const total = cached.compact.columns.count;
    if (cached.complete && total > this.headEvents) {
      cached.headJson ??= JSON.stringify(compactHead(cached.compact, this.headEvents, `head-${cached.version}`));
      return { changed: true, timelineJson: cached.headJson, complete: false, rest: { version: cached.version, from: this.headEvents, total } };
    }
    cached.json ??= JSON.stringify(cached.compact);
    return { changed: true, timelineJson: cached.json, complete: cached.complete };
  }

  async page(sessionId: string, version: string, from: number, signal?: AbortSignal): Promise<TimelinePageAnswer> {
    const cached = await this.cache.get(sessionId, signal);
    if (cached.version !== version) return { stale: true };
    return { stale: false, pageJson: JSON.stringify(compactPage(cached.compact, from, from + this.pageEvents)) };
  }

  async detail(sessionId: string, eventId: string, signal?: AbortSignal): Promise<{ version: string; detail: TimelineDetail } | null> {
    const cached = await this.cache.holding(sessionId, eventId, signal);
    const index = cached.indexOf.get(eventId);
    const event = index === undefined ? undefined : cached.timeline.events[index];
    return event ? { version: cached.version, detail: event.detail } : null;
  }

  async search(sessionId: string, query: string, signal?: AbortSignal): Promise<{ version: string; indices: number[] }> {
    const cached = await this.cache.get(sessionId, signal);
    return { version: cached.version, indices: searchTimelineEvents(cached.timeline.events, query) };
  }

  importTranscript(jsonl: string, name: string | undefined, signal?: AbortSignal): Promise<ImportedTranscript> {
    return importTranscriptText(this.runtime, jsonl, { ...(name ? { name } : {}), ...(signal ? { signal } : {}) });
  }
}
