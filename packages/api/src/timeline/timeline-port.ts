import type { TimelineSource } from "@cairn/core/timeline";

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
export interface TimelinePort {
  source(sessionId: string, signal?: AbortSignal): Promise<TimelineSource>;
  importTranscript(jsonl: string, name: string | undefined, signal?: AbortSignal): Promise<ImportedTranscript>;
}
