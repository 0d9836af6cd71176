import type { TimelinePort } from "../timeline/timeline-port.ts";
import type { EventFeed } from "../hub/event-stream.ts";
import type { PermissionAnswer, PermissionBehavior, PermissionMode } from "@cairn/core/schema";
import type {
  CompactResult,
  FileContent,
  MetaInfo,
  RewindMode,
  RewindPreview,
  RewindResult,
  MemoryView,
  SendResult,
  SessionEvent,
  SessionSnapshot,
  SessionSummary,
  SettingsView,
  TerminalOutput,
  TreeResult,
  WorkspaceChange,
  WriteResult,
} from "./types.ts";
import type { McpServerSummary, McpServerView } from "./mcp-types.ts";
import type { SharesPort } from "../share/share-types.ts";
import type { GitBranchView, GitStatusView } from "../git/git-types.ts";
import type { ChangesView, ReviewCommentInput, RevertResult } from "../review/review-types.ts";

/**
 * An event with its per-session sequence number (1, 2, 3, … without gaps). `json`, when a bus has it at hand, is
 * `JSON.stringify(event)` as published (the Redis stream entry's payload): the live SSE response writes it as it is.
 */
export type SequencedEvent = { seq: number; event: SessionEvent; json?: string };

/** The live sessions, as the router sees them. Implemented by `SessionHub`. */
export interface SessionsPort {
  create(options: { model?: string; permissionMode?: PermissionMode }): Promise<{ sessionId: string }>;
  list(): Promise<SessionSummary[]>;
  get(sessionId: string): Promise<SessionSnapshot>;
  send(sessionId: string, prompt: string): Promise<SendResult>;
  interrupt(sessionId: string): Promise<{ interrupted: boolean }>;
  setMode(sessionId: string, mode: PermissionMode): Promise<void>;
  setModel(sessionId: string, model: string): Promise<void>;
  compact(sessionId: string, instructions: string | undefined): Promise<CompactResult>;
  fork(sessionId: string, messageUuid: string): Promise<{ sessionId: string }>;
  rewind(sessionId: string, messageUuid: string, mode: RewindMode): Promise<RewindResult>;
  rewindPreview(sessionId: string, messageUuid: string): Promise<RewindPreview>;
  /** With `sessionId`, a checkpoint of the checkout that session runs in (its worktree's). */
  restoreCheckpoint(commit: string, sessionId?: string): Promise<{ restored: string; backup: string }>;
  /** Live-first then replay: yields every event after `afterSeq` exactly once, until `signal` aborts. */
  events(sessionId: string, afterSeq: number, signal: AbortSignal): AsyncIterable<SequencedEvent>;
  /** The same events read in batches (`session.events` responses are written from it); fails as `events` does for an unknown session. */
  eventFeed(sessionId: string, afterSeq: number): Promise<EventFeed>;
  respond(sessionId: string, requestId: string, answer: PermissionAnswer): Promise<{ accepted: boolean }>;
  /** Session-scoped rules live in the session's own state. */
  addSessionRule(sessionId: string, behavior: PermissionBehavior, rule: string): Promise<void>;
  removeSessionRule(sessionId: string, behavior: PermissionBehavior, rule: string): Promise<boolean>;
  /** The session's memory files, skills and slash commands, re-checked now (the workspace's without a session). */
  memory(sessionId: string | undefined): Promise<MemoryView>;
}

export interface WorkspaceFilesPort {
  tree(path: string | undefined): Promise<TreeResult>;
  read(path: string): Promise<FileContent>;
  write(path: string, content: string, expectedMtimeMs: number | undefined): Promise<WriteResult>;
  create(path: string, kind: "file" | "directory"): Promise<WriteResult>;
  rename(from: string, to: string): Promise<void>;
  delete(path: string): Promise<void>;
  watch(signal: AbortSignal): AsyncIterable<WorkspaceChange>;
}

export interface SettingsPort {
  get(sessionId: string | undefined): Promise<SettingsView>;
  addLocalRule(behavior: PermissionBehavior, rule: string): Promise<void>;
  removeLocalRule(behavior: PermissionBehavior, rule: string): Promise<boolean>;
}

export interface TerminalsPort {
  open(options: { cols: number; rows: number }): Promise<{ terminalId: string }>;
  input(terminalId: string, data: string): Promise<void>;
  resize(terminalId: string, cols: number, rows: number): Promise<void>;
  close(terminalId: string): Promise<void>;
  /** Output chunks with a per-terminal seq; replays the retained output after `afterSeq`. */
  output(terminalId: string, afterSeq: number, signal: AbortSignal): AsyncIterable<{ seq: number; output: TerminalOutput }>;
}

export interface MetaPort {
  info(): Promise<MetaInfo>;
  trust(): Promise<{ trusted: boolean }>;
}

/** MCP servers for the panel (implemented by `McpService` over the runtime's `McpManager`). */
export interface McpPort {
  servers(signal: AbortSignal): Promise<McpServerView[]>;
  reconnect(name: string, signal: AbortSignal): Promise<McpServerView>;
  changes(signal: AbortSignal): AsyncIterable<McpServerSummary[]>;
}

/** The Changes panel and Send review (implemented by `ChangesService` and `ReviewService`). */
export interface ReviewPort {
  changes(sessionId: string): Promise<ChangesView>;
  revertFile(sessionId: string, path: string, expectedSha256: string | null): Promise<RevertResult>;
  revertHunk(sessionId: string, path: string, hunkIndex: number, expectedSha256: string): Promise<RevertResult>;
  sendReview(sessionId: string, comments: readonly ReviewCommentInput[]): Promise<SendResult & { message: string }>;
}

/** Browser sign-ins (implemented by a `BrowserSessionRepository`: the node's auth.db, or PostgreSQL in distributed mode). */
export interface AuthPort {
  /** Revokes every browser session; the access token itself stays valid. Returns how many were live. */
  signOutEverywhere(): Promise<number>;
}

/** The workspace's git repository (implemented by `GitService`). */
export interface GitPort {
  status(): Promise<GitStatusView>;
  branches(): Promise<GitBranchView[]>;
  init(): Promise<void>;
  stage(paths: readonly string[]): Promise<void>;
  unstage(paths: readonly string[]): Promise<void>;
  commit(message: string): Promise<{ commit: string; summary: string }>;
  draftMessage(signal: AbortSignal): Promise<{ message: string }>;
  createBranch(name: string): Promise<void>;
  switchBranch(name: string): Promise<void>;
  push(): Promise<{ output: string }>;
}

/** A worktree session as the IDE shows it. */
export type WorktreeView = { sessionId: string; branch: string; base: string; path: string; discarded: boolean };

/** Sessions in git worktrees of their own (implemented over the hub and `WorktreeSessions`). */
export interface WorktreePort {
  create(options: { model?: string; permissionMode?: PermissionMode }): Promise<{ sessionId: string; worktree: WorktreeView }>;
  /** The session's worktree; null for a session of the main checkout. */
  get(sessionId: string): Promise<WorktreeView | null>;
  merge(sessionId: string): Promise<{ commit: string; base: string; branch: string }>;
  discard(sessionId: string): Promise<WorktreeView>;
  /** The git repository a session works in: its worktree's, or undefined for the main checkout's. */
  git(sessionId: string): Promise<GitPort | undefined>;
}

/** What every procedure receives: the server's services, built once per server. */
export type ApiContext = {
  meta: MetaPort;
  sessions: SessionsPort;
  files: WorkspaceFilesPort;
  settings: SettingsPort;
  terminals: TerminalsPort;
  /** The owner's share links (the share page itself is served by the separate `shareViewRouter`). */
  shares: SharesPort;
  mcp: McpPort;
  auth: AuthPort;
  /** Session timelines and transcript upload (optional: contexts built for other tests leave it out). */
  timeline?: TimelinePort;
  /** The review workflow (optional for the same reason). */
  review?: ReviewPort;
  git?: GitPort;
  worktrees?: WorktreePort;
  /** A subscription opened by a signed-in browser: aborted once that browser is signed out (the stream then ends). */
  signedOut?: AbortSignal;
};
