import type { TimelineSource } from "@cairn/core/timeline";
import { importTranscriptText } from "./import-transcript.ts";
import { loadTimelineSource, type TimelineStoreLocation } from "./source.ts";
import type { ImportedTranscript, TimelinePort } from "./timeline-port.ts";

type Where = TimelineStoreLocation & { version: string };

/** The timeline port over this workspace's transcripts (a `Runtime` is a `Where`). */
export class TimelineService implements TimelinePort {
  private readonly runtime: Where;

  constructor(runtime: Where) {
    this.runtime = runtime;
  }

  source(sessionId: string, signal?: AbortSignal): Promise<TimelineSource> {
    return loadTimelineSource(this.runtime, sessionId, signal ? { signal } : {});
  }

  importTranscript(jsonl: string, name: string | undefined, signal?: AbortSignal): Promise<ImportedTranscript> {
    return importTranscriptText(this.runtime, jsonl, { ...(name ? { name } : {}), ...(signal ? { signal } : {}) });
  }
}
