import type { TimelineSource } from "@cairn/core/timeline";
import type { Runtime } from "../runtime/create-runtime.ts";
import { importTranscriptText, type ImportedTranscript } from "./import-transcript.ts";
import { loadTimelineSource } from "./source.ts";

/** What the `timeline` router needs. */
export interface TimelinePort {
  source(sessionId: string, signal?: AbortSignal): Promise<TimelineSource>;
  importTranscript(jsonl: string, name: string | undefined, signal?: AbortSignal): Promise<ImportedTranscript>;
}

export class TimelineService implements TimelinePort {
  private readonly runtime: Pick<Runtime, "cairnHome" | "workspaceRoot" | "version">;

  constructor(runtime: Pick<Runtime, "cairnHome" | "workspaceRoot" | "version">) {
    this.runtime = runtime;
  }

  source(sessionId: string, signal?: AbortSignal): Promise<TimelineSource> {
    return loadTimelineSource(this.runtime, sessionId, signal ? { signal } : {});
  }

  importTranscript(jsonl: string, name: string | undefined, signal?: AbortSignal): Promise<ImportedTranscript> {
    return importTranscriptText(this.runtime, jsonl, { ...(name ? { name } : {}), ...(signal ? { signal } : {}) });
  }
}
