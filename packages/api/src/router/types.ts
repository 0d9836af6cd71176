import type { AgentEvent, ConversationMessage, PermissionBehavior, PermissionMode, PermissionRuleSource, TodoItem } from "@cairn/core/schema";
import type { BackgroundAgentView, MemoryOverview, PermissionRequest, SlashCommandInfo } from "@cairn/core";

/**
 * The data the web IDE receives. Plain JSON (no transformer): everything here survives `JSON.stringify`.
 */

/** Published whenever the session's live state changes (the starting state comes from `session.get`). */
export type SessionStateEvent = {
  type: "session-state";
  running: boolean;
  permissionMode: PermissionMode;
  model: string;
  todos: TodoItem[];
  /** Tokens in the context as of the last response (its input, cache and output tokens), null before the first. */
  contextTokens: number | null;
  /** Prompts waiting for the current run to end (send queues while running). */
  queued: number;
  /** Agents started with `run_in_background`: those running and the latest that ended. */
  backgroundAgents: BackgroundAgentView[];
};

/**
 * The events after the subscriber's cursor are gone (trimmed from the stream, or the cursor is from
 * another numbering): what follows under the same id is the conversation as a snapshot (`message`
 * events, the pending permission prompts and a `session-state`), so the client drops what it holds of
 * the session and rebuilds it from them, never showing a silent gap.
 */
export type ResyncEvent = { type: "resync" };

/** What `session.events` yields: the engine's events plus the hub's own state snapshots and resyncs. */
export type SessionEvent = AgentEvent | SessionStateEvent | ResyncEvent;

export type SessionSummary = {
  sessionId: string;
  title: string;
  /** ISO timestamp of the last activity. */
  updatedAt: string;
  running: boolean;
  messageCount: number;
  /** Set for a session in a git worktree of its own: its branch, the branch it merges into, and whether it was discarded. */
  worktree?: { branch: string; base: string; discarded: boolean };
};

export type SessionSnapshot = {
  sessionId: string;
  title: string;
  messages: ConversationMessage[];
  running: boolean;
  permissionMode: PermissionMode;
  model: string;
  todos: TodoItem[];
  contextTokens: number | null;
  contextWindow: number;
  pendingPermissions: PermissionRequest[];
  /** The seq of the last event published; subscribe with `lastEventId: String(lastSeq)` to continue from here. */
  lastSeq: number;
  /**
   * While a response is streaming, the seq just before its `message-start`, else null. Subscribe
   * from here (`lastEventId: String(streamingFromSeq ?? lastSeq)`) to also get the text streamed so
   * far; `message` events for messages already held may come again; key messages by uuid.
   */
  streamingFromSeq: number | null;
  queued: number;
  backgroundAgents: BackgroundAgentView[];
};

/**
 * A prompt started or queued. A built-in slash command runs at once instead: `command` says which and
 * what came of it (`/clear` also names the new session to switch to).
 */
export type SendResult = {
  queued: boolean;
  position: number;
  command?: { name: "compact" | "clear" | "model" | "help"; message: string; sessionId?: string };
};

/** `memory.get`: the memory files loaded (path, kind, size), notices, skills, invalid skill files and the slash commands. */
export type MemoryView = MemoryOverview & { commands: SlashCommandInfo[] };

export type RewindMode = "files" | "conversation" | "both";
/** The files a "files" rewind would change; `available` is false when checkpoints are off on this server. */
export type RewindPreview = {
  available: boolean;
  checkpoint: string | null;
  files: Array<{ path: string; status: "added" | "modified" | "deleted" }>;
};

/**
 * Rewinding to a message goes back to just before it: "conversation" forks a new session that ends
 * with the message's parent; "files" restores the workspace checkpoint taken when the message was written.
 */
export type RewindResult = {
  /** The new session ("conversation"/"both"); null for "files". */
  sessionId: string | null;
  /**
   * The checkpoint the files were restored to, and one of the files as they were just before (to
   * undo); both null when nothing changed the files since the message (or for "conversation").
   */
  restoredCheckpoint: string | null;
  backupCheckpoint: string | null;
  /** When the message was a prompt, its text, to put back in the composer. */
  prompt: string | null;
};

export type CompactResult = { preTokens: number; postTokens: number; summarizedCount: number };

export type MetaInfo = {
  version: string;
  demo: boolean;
  model: string;
  workspaceRoot: string;
  sandbox: { available: boolean; reason?: string };
  trusted: boolean;
};

export type TreeEntry = { name: string; path: string; kind: "file" | "directory" | "symlink" | "other" };
export type TreeResult = { path: string; entries: TreeEntry[] };

export type FileContent = {
  /** Workspace-absolute path. */
  path: string;
  /** UTF-8 text; empty when `binary`. */
  content: string;
  mtimeMs: number;
  size: number;
  binary: boolean;
};

export type WriteResult = { path: string; mtimeMs: number; size: number };

export type WorkspaceChange = { type: "change" | "rename" | "create" | "delete"; path: string; mtimeMs?: number };

export type SettingsRule = { rule: string; behavior: PermissionBehavior; source: PermissionRuleSource };
export type SettingsProblemInfo = { file: string; path?: string; message: string };
export type SettingsView = {
  rules: SettingsRule[];
  defaultMode: PermissionMode;
  problems: SettingsProblemInfo[];
  /** The files rules come from, by source. */
  files: Record<string, string>;
};

export type TerminalOutput = { type: "data"; data: string } | { type: "exit"; exitCode: number | null; signal: number | null };
