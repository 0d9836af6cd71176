import type { TimelineDetail, TimelineSource } from "@cairn/core/timeline";

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
 * text, serialized once per version on the server (a 100,000-event timeline is 14 MB; serializing it per request
 * kept the server from answering anything else meanwhile). `complete` is false for the first part of a large
 * timeline: ask again (with its version) for the whole.
 */
export type TimelineViewAnswer = { changed: false; version: string } | { changed: true; timelineJson: string; complete: boolean };

export interface TimelinePort {
  source(sessionId: string, signal?: AbortSignal): Promise<TimelineSource>;
  view(sessionId: string, knownVersion: string | undefined, signal?: AbortSignal): Promise<TimelineViewAnswer>;
  /** One event's details (what the compact view leaves out); null when the timeline has no such event (any more). */
  detail(sessionId: string, eventId: string, signal?: AbortSignal): Promise<{ version: string; detail: TimelineDetail } | null>;
  /** Indices (into the timeline of `version`) of the events whose search text matches. */
  search(sessionId: string, query: string, signal?: AbortSignal): Promise<{ version: string; indices: number[] }>;
  importTranscript(jsonl: string, name: string | undefined, signal?: AbortSignal): Promise<ImportedTranscript>;
}
