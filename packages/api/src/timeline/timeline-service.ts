import { searchTimelineEvents, type TimelineDetail, type TimelineSource } from "@cairn/core/timeline";
import { importTranscriptText } from "./import-transcript.ts";
import { loadTimelineSource, type TimelineStoreLocation } from "./source.ts";
import { TimelineCache } from "./timeline-cache.ts";
import type { ImportedTranscript, TimelinePort, TimelineViewAnswer } from "./timeline-port.ts";

type Where = TimelineStoreLocation & { version: string };

/**
 * The timeline port over this workspace's transcripts (a `Runtime` is a `Where`): timelines are built
 * here, cached per transcript, and sent compact (a large one first in part, then whole); details answer from
 * the newest build holding the event, search from the whole timeline.
 */
export class TimelineService implements TimelinePort {
  private readonly runtime: Where;
  private readonly cache: TimelineCache;

  constructor(runtime: Where, options: { partialBytes?: number } = {}) {
    this.runtime = runtime;
    this.cache = new TimelineCache(runtime, options);
  }

  source(sessionId: string, signal?: AbortSignal): Promise<TimelineSource> {
    return loadTimelineSource(this.runtime, sessionId, signal ? { signal } : {});
  }

  async view(sessionId: string, knownVersion: string | undefined, signal?: AbortSignal): Promise<TimelineViewAnswer> {
    const cached = await this.cache.first(sessionId, knownVersion, signal);
    return cached.version === knownVersion
      ? { changed: false, version: cached.version }
      : { changed: true, timeline: cached.compact, complete: cached.complete };
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
