import { basename, resolve } from "node:path";
import type { LoadReport } from "../session/transcript-index.ts";
import { type NewSession, writeNewSession, type WriteSessionOptions, type WrittenSession } from "./transcript-fork.ts";
import { readHeadAndTail } from "./transcript-head-tail.ts";
import { loadTranscript } from "./transcript-reader.ts";
import { TranscriptStoreError, assertSessionId } from "./transcript-store.ts";

export interface ImportOptions extends WriteSessionOptions {
  /** The working directory to file the session under; defaults to the one the transcript records. */
  cwd?: string;
  /** Defaults to the session id the transcript records, else the file name. */
  sessionId?: string;
}

export interface ImportResult extends WrittenSession {
  cwd: string;
  report: LoadReport;
}

/**
 * A Claude Code transcript as a Cairn session. The conversation is rebuilt with the tolerant loader
 * (main chain only: sidechains, tombstoned messages and line types Cairn does not use stay behind),
 * each response becomes one assistant message holding all its blocks, every other field of every
 * message is kept, and the meta line records `importedFrom`.
 */
export async function importClaudeCodeTranscript(file: string, options: ImportOptions): Promise<ImportResult> {
  const { session, report } = await readClaudeCodeTranscript(file, options);
  const written = await writeNewSession(session, options);
  return { ...written, cwd: session.cwd, report };
}

/** The session `importClaudeCodeTranscript` writes, read from the transcript file, for a store to write (PostgreSQL's rows). */
export async function readClaudeCodeTranscript(
  file: string,
  options: Pick<ImportOptions, "cwd" | "sessionId" | "signal">,
): Promise<{ session: NewSession; report: LoadReport }> {
  const path = resolve(file);
  const head = await readHeadAndTail(path, { signal: options.signal });
  const loaded = await loadTranscript(path, { scope: "all", signal: options.signal });
  const cwd = options.cwd ?? loaded.meta?.cwd ?? head.cwd;
  if (cwd === undefined) {
    throw new TranscriptStoreError("missing-cwd", `${file} records no working directory; pass one explicitly`);
  }
  const recordedSessionId = loaded.meta?.sessionId ?? head.recordedSessionId;
  const sessionId = options.sessionId ?? recordedSessionId ?? basename(path, ".jsonl");
  assertSessionId(sessionId);
  const session: NewSession = {
    sessionId,
    cwd,
    title: loaded.title,
    importedFrom: {
      format: "claude-code",
      path,
      ...(recordedSessionId === undefined ? {} : { sessionId: recordedSessionId }),
    },
    messages: loaded.messages,
  };
  return { session, report: loaded.report };
}
