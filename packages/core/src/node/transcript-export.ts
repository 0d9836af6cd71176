import { TRANSCRIPT_SCHEMA_VERSION, type SessionMetaLine } from "../schema/transcript.ts";
import { linearize } from "../session/linearize.ts";
import { renderMarkdown } from "../session/markdown.ts";
import { findSessionTranscript } from "./transcript-list.ts";
import { loadTranscript } from "./transcript-reader.ts";
import { TranscriptStoreError } from "./transcript-store.ts";

export type ExportFormat = "jsonl" | "markdown";

export interface ExportOptions {
  cairnHome: string;
  /** Narrows the lookup to this working directory's sessions. */
  cwd?: string;
  signal?: AbortSignal;
}

/**
 * A session's conversation as text, in chunks. `jsonl`: a meta line, then one line per message in
 * Claude Code's envelope, re-linked as one chain, so both Claude Code and `cairn transcript import`
 * read it back; checkpoints (local to this machine) and skipped lines are left out. `markdown`: for
 * people.
 */
export async function* exportTranscript(sessionId: string, format: ExportFormat, options: ExportOptions): AsyncGenerator<string, void, undefined> {
  const path = await findSessionTranscript(options.cairnHome, sessionId, options.cwd);
  if (path === undefined) throw new TranscriptStoreError("session-not-found", `No session ${sessionId}`);
  const loaded = await loadTranscript(path, { scope: "all", signal: options.signal });
  const cwd = loaded.meta?.cwd ?? options.cwd;
  if (format === "markdown") {
    yield* renderMarkdown({ title: loaded.title, sessionId, cwd }, loaded.messages);
    return;
  }
  const firstTimestamp = loaded.messages[0]?.timestamp ?? new Date(0).toISOString();
  const meta: SessionMetaLine = loaded.meta ?? {
    type: "cairn-session",
    sessionId,
    timestamp: firstTimestamp,
    cwd: cwd ?? "",
    cairnSchema: TRANSCRIPT_SCHEMA_VERSION,
  };
  yield `${JSON.stringify({ ...meta, sessionId })}\n`;
  const envelope = {
    sessionId,
    ...(cwd === undefined ? {} : { cwd }),
    ...(meta.version === undefined ? {} : { version: meta.version }),
    userType: "external",
    cairnSchema: TRANSCRIPT_SCHEMA_VERSION,
  };
  for (const message of linearize(loaded.messages)) {
    options.signal?.throwIfAborted();
    yield `${JSON.stringify({ ...message, ...envelope })}\n`;
  }
}
