import type { TimelineDetail, TimelineSource, TimelineStatus } from "@cairn/core/timeline";

/** The upload limit: a long Claude Code session is a few MB; far past that is not a transcript. */
export const MAX_TRANSCRIPT_CHARS = 50 * 1024 * 1024;

export type ImportedTranscript = {
  sessionId: string;
  messageCount: number;
  /** What the importer could not use: reported, never fatal while something was importable. */
  report: { lines: number; malformedLines: number; tornTail: boolean; skippedLines: number; brokenLinks: number };
};

/**
 * What the `timeline` router needs. Kept free of Node imports: the web app type-checks the router
 * (and so this file) against browser types.
 */
/**
 * The timeline as built on the server, unless the viewer already has this version: a `CompactTimeline` as JSON
 * text. `complete` is false for a first part: with `rest`, the first events of a large built timeline, whose
 * other events come as pages (`timeline.page` from `rest.from`, with `rest.version`), so no answer is large and
 * the page stays responsive while it adds them; without `rest`, the first part of a transcript still being read:
 * ask again (with its version) for the rest.
 */
export type TimelineViewAnswer =
  | { changed: false; version: string }
  | { changed: true; timelineJson: string; complete: boolean; rest?: { version: string; from: number; total: number }; detailsJson?: string };

/**
 * `detailsJson` of a first look (no `knownVersion`): the details of its first events whose details are final (not
 * unfinished or partial), so the first event opened needs no request: JSON text of event id → `FirstDetail`.
 */
export type FirstDetail = { status: TimelineStatus; detail: TimelineDetail };

/** A page of a built timeline (`CompactTimelinePage` as JSON text), or `stale` when the timeline changed since that version. */
export type TimelinePageAnswer = { stale: false; pageJson: string } | { stale: true };

export interface TimelinePort {
  source(sessionId: string, signal?: AbortSignal): Promise<TimelineSource>;
  view(sessionId: string, knownVersion: string | undefined, signal?: AbortSignal): Promise<TimelineViewAnswer>;
  /** The events from `from` on (a page of them) of the timeline of `version`. */
  page(sessionId: string, version: string, from: number, signal?: AbortSignal): Promise<TimelinePageAnswer>;
  /** One event's details (what the compact view leaves out); null when the timeline has no such event (any more). */
  detail(sessionId: string, eventId: string, signal?: AbortSignal): Promise<{ version: string; detail: TimelineDetail } | null>;
  /** Indices (into the timeline of `version`) of the events whose search text matches. */
  search(sessionId: string, query: string, signal?: AbortSignal): Promise<{ version: string; indices: number[] }>;
  importTranscript(jsonl: string, name: string | undefined, signal?: AbortSignal): Promise<ImportedTranscript>;
}
