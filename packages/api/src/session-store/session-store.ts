import type { LoadScope, TranscriptContents, TranscriptSink } from "@cairn/core";
import type { NewSession } from "@cairn/core/node";

/** The append side of one session's transcript: conversation lines, tombstones, hook runs and checkpoints, in order. */
export type SessionTranscriptSink = TranscriptSink & {
  /** Records that the workspace checkpoint `commit` was taken when `messageUuid` was written. */
  appendCheckpoint(messageUuid: string, commit: string): Promise<void>;
};

/** A session's list entry. */
export type StoredSessionSummary = {
  sessionId: string;
  title: string | undefined;
  firstPrompt: string | undefined;
  /** ISO time of the last line written. */
  lastActivityAt: string;
  /** Conversation lines written (an estimate of the messages: a response may span lines). */
  messageCount: number;
  /** A prompt runs on the node that owns the session (known where the store is shared by several nodes). */
  running?: boolean;
};

export type LoadOptions = { scope?: LoadScope; leafUuid?: string; signal?: AbortSignal };

/** A subagent's sidechain kept as rows: its lines after the count asked for, how many it has in all, and its description. */
export type SidechainTexts = { agentId: string; description: string | undefined; texts: string[]; total: number };

/** A session's lines as written after a count, how many in all, and its subagents' sidechains likewise. */
export type StoredLineTexts = { texts: string[]; total: number; sidechains: SidechainTexts[] };

/** The subagent run a sidechain transcript belongs to. */
export type SidechainAgent = { agentId: string; agentType: string; description: string };

/**
 * Where the transcripts of one workspace's sessions live: append lines, load, list. The line format
 * is the JSONL envelope wherever they are kept (Claude Code's, plus Cairn's extra line types), so a
 * session moves between stores as its JSONL lines. Embedded: one JSONL file per session under
 * `$CAIRN_HOME/projects/`; distributed: rows in PostgreSQL, appended in order per session.
 */
export interface SessionStore {
  readonly kind: "jsonl" | "postgres";
  /**
   * Records a new session before its first line, so the other nodes sharing the store list it from its creation
   * (while its owner's lease is live). Only a store several nodes share has it; `load` still finds nothing until a line is written.
   */
  register?(sessionId: string): Promise<void>;
  /** The sink for a session's lines; the first line appended creates the session. */
  openTranscript(sessionId: string): SessionTranscriptSink;
  /** The session read back with the tolerant loader, or undefined when there is no such session. */
  load(sessionId: string, options?: LoadOptions): Promise<TranscriptContents | undefined>;
  /**
   * The session's lines as written (the exact JSONL text) after its first `afterLine`, and how many it has in all, or
   * undefined when there is no such session; what a timeline is built from where the lines are not files. Lines are
   * only ever appended, so the count is the transcript's version. Only a store without files (PostgreSQL) has it.
   * Each subagent sidechain comes with its lines after its count in `afterSidechains` (all of them for one not named).
   */
  lineTexts?(sessionId: string, afterLine: number, afterSidechains?: ReadonlyMap<string, number>): Promise<StoredLineTexts | undefined>;
  /**
   * The sink of a subagent run's sidechain, kept beside its session (where it has no file: PostgreSQL), read back by
   * `lineTexts`; without it a sidechain is a JSONL file next to the session's. `path` names it for hooks.
   */
  openSidechain?(sessionId: string, agent: SidechainAgent): { sink: TranscriptSink; path: string };
  /** The workspace's sessions, most recently active first. */
  list(options?: { signal?: AbortSignal }): Promise<StoredSessionSummary[]>;
  /**
   * A new session of this workspace holding a whole conversation (an imported transcript), its meta line recording
   * `importedFrom`; all of it or nothing is written, and an id already taken is refused with code `session-exists`.
   */
  writeSession(session: Omit<NewSession, "cwd">): Promise<void>;
  /** A new session holding the conversation up to `atUuid` (inclusive), with its checkpoints; the meta line records `forkedFrom`. */
  fork(sourceSessionId: string, atUuid: string, newSessionId: string): Promise<void>;
  /** The path hooks are given as `transcript_path` (a file only in the JSONL store). */
  transcriptPath(sessionId: string): string;
  close(): Promise<void>;
}

/** Where a store keeps a workspace's sessions, and the version written on every line. */
export type SessionStoreLocation = { cairnHome: string; workspaceRoot: string; version: string };

export type SessionStoreFactory = (location: SessionStoreLocation) => SessionStore;
