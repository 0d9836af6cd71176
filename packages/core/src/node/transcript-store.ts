import { mkdir, open, type FileHandle } from "node:fs/promises";
import { dirname, join } from "node:path";
import { conversationMessageSchema, type ConversationMessage, type HookRunRecord } from "../schema/messages.ts";
import { TRANSCRIPT_SCHEMA_VERSION, projectDirName, sessionMetaLineText, type SessionMetaLine } from "../schema/transcript.ts";
import type { TranscriptSink } from "../session/port.ts";
import { repairTornTail } from "./transcript-tail.ts";

/**
 * Durability policy (what "written" means when an append resolves):
 * - `"user-messages"` (default for real sessions): every line is handed to the kernel with one
 *   `write` before its promise resolves, so it survives the process being killed. User lines that
 *   are not pure tool results (prompts, resume notes, compact summaries) are also `fdatasync`ed
 *   before resolving, so what the person typed survives a power cut; since fdatasync flushes the
 *   whole file, every line before a prompt is durable with it. Assistant lines and tool results
 *   written after the last prompt can be lost to a power cut, never to a crash.
 * - `"always"`: fdatasync after every line.
 * - `"never"`: no fdatasync (tests, throwaway sessions).
 * A new file's directory entry is fsynced too, unless the policy is `"never"`.
 */
export type FsyncPolicy = "user-messages" | "always" | "never";

export interface JsonlTranscriptStoreOptions {
  cairnHome: string;
  cwd: string;
  sessionId: string;
  /** Cairn's version, written on every line as Claude Code writes its own. */
  version: string;
  /** Default `"user-messages"`. */
  fsync?: FsyncPolicy;
  model?: string;
  title?: string;
  forkedFrom?: SessionMetaLine["forkedFrom"];
  importedFrom?: SessionMetaLine["importedFrom"];
  now?: () => Date;
  /** Write to this file instead of the session's own: a subagent's sidechain (see `subagentTranscriptPath`). */
  path?: string;
}

export interface JsonlTranscriptStore extends TranscriptSink {
  readonly path: string;
  /** fdatasync calls made so far: what the durability policy cost (diagnostics, tests, benchmarks). */
  readonly syncCount: number;
  /** Records that the workspace checkpoint `commit` was taken when `messageUuid` was written. */
  appendCheckpoint(messageUuid: string, commit: string): Promise<void>;
}

export type TranscriptStoreErrorCode =
  | "closed"
  | "invalid-message"
  | "invalid-session-id"
  | "write-failed"
  | "session-exists"
  | "session-not-found"
  | "missing-cwd"
  /** A shared store refused the append: another node has taken the session over (its lease generation is newer). */
  | "fenced";

export class TranscriptStoreError extends Error {
  readonly code: TranscriptStoreErrorCode;
  constructor(code: TranscriptStoreErrorCode, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = "TranscriptStoreError";
    this.code = code;
  }
}

const SESSION_ID = /^[A-Za-z0-9][A-Za-z0-9._-]*$/;

export function assertSessionId(sessionId: string): void {
  if (!SESSION_ID.test(sessionId) || sessionId.length > 200) {
    throw new TranscriptStoreError("invalid-session-id", `Not a valid session id: ${JSON.stringify(sessionId)}`);
  }
}

/** `$CAIRN_HOME/projects/<projectDirName(cwd)>/<sessionId>.jsonl` */
export function sessionTranscriptPath(options: { cairnHome: string; cwd: string; sessionId: string }): string {
  assertSessionId(options.sessionId);
  return join(options.cairnHome, "projects", projectDirName(options.cwd), `${options.sessionId}.jsonl`);
}

/** `$CAIRN_HOME/projects/<projectDirName(cwd)>/<sessionId>/subagents/agent-<agentId>.jsonl`, Claude Code's layout. */
export function subagentTranscriptPath(options: { cairnHome: string; cwd: string; sessionId: string; agentId: string }): string {
  assertSessionId(options.sessionId);
  assertSessionId(options.agentId);
  return join(options.cairnHome, "projects", projectDirName(options.cwd), options.sessionId, "subagents", `agent-${options.agentId}.jsonl`);
}

/**
 * The append-only JSONL file of one session. All writes go through one queue, each line with a
 * single `write` of `JSON.stringify(line) + "\n"` on an `O_APPEND` descriptor, so a crash can only
 * tear the last line. Opening an existing file first repairs a torn tail left by an earlier crash.
 */
export function createJsonlTranscriptStore(options: JsonlTranscriptStoreOptions): JsonlTranscriptStore {
  const path = options.path ?? sessionTranscriptPath(options);
  if (options.path !== undefined) assertSessionId(options.sessionId);
  const now = options.now ?? (() => new Date());
  const fsync: FsyncPolicy = options.fsync ?? "user-messages";
  const envelope = {
    sessionId: options.sessionId,
    cwd: options.cwd,
    version: options.version,
    userType: "external",
    cairnSchema: TRANSCRIPT_SCHEMA_VERSION,
  };
  let handle: FileHandle | undefined;
  let queue: Promise<unknown> = Promise.resolve();
  let closed = false;
  let unsyncedWrites = false;
  let syncCount = 0;
  const sync = async (file: FileHandle): Promise<void> => {
    await file.datasync();
    syncCount++;
    unsyncedWrites = false;
  };
  /** A failed write may have left part of a line behind; the next line starts on a fresh one. */
  let startWithNewline = false;

  const enqueue = <T>(task: () => Promise<T>): Promise<T> => {
    const run = queue.then(task);
    queue = run.catch(() => undefined);
    return run;
  };

  const metaLine = (): string =>
    `${sessionMetaLineText({ sessionId: options.sessionId, cwd: options.cwd, version: options.version, timestamp: now().toISOString() }, options)}\n`;

  /**
   * Opens the file once. A file with nothing in it yet (new, or holding only a torn first line that was cut off)
   * gets its meta line as `header`, to go out in the same write as the first line.
   */
  const openFile = async (): Promise<{ file: FileHandle; header: string }> => {
    if (handle !== undefined) return { file: handle, header: "" };
    await mkdir(dirname(path), { recursive: true });
    const opened = await open(path, "a+");
    let empty: boolean;
    try {
      const { size } = await opened.stat();
      empty = size === 0 || ((await repairTornTail(opened, size)) === "truncated" && (await opened.stat()).size === 0);
    } catch (error) {
      await opened.close();
      throw error;
    }
    handle = opened;
    return { file: opened, header: empty ? metaLine() : "" };
  };

  const writeLine = (line: Record<string, unknown>, durable: boolean): Promise<void> => {
    if (closed) return Promise.reject(new TranscriptStoreError("closed", `Transcript ${path} is closed`));
    return enqueue(async () => {
      const { file, header } = await openFile();
      const text = `${header}${startWithNewline ? "\n" : ""}${JSON.stringify(line)}\n`;
      try {
        await writeWhole(file, text);
        startWithNewline = false;
      } catch (error) {
        if (header === "") startWithNewline = true;
        else {
          // The meta line may be torn: the next write opens the file again, which repairs it and starts it over.
          handle = undefined;
          await file.close().catch(() => undefined);
        }
        throw new TranscriptStoreError("write-failed", `Could not append to ${path}`, { cause: error });
      }
      unsyncedWrites = true;
      if (header !== "" && fsync !== "never") {
        // The file's creation (its directory entry) and its first lines are made durable together: one sync of
        // each, side by side, rather than the meta line and the first line one after the other.
        await Promise.all([sync(file), syncDirectory(dirname(path))]);
      } else if (fsync === "always" || (durable && fsync === "user-messages")) await sync(file);
    });
  };

  return {
    sessionId: options.sessionId,
    path,
    get syncCount() {
      return syncCount;
    },
    appendMessage(message: ConversationMessage): Promise<void> {
      const parsed = conversationMessageSchema.safeParse(message);
      if (!parsed.success) {
        return Promise.reject(new TranscriptStoreError("invalid-message", `Refusing to write an invalid message: ${parsed.error.message}`));
      }
      // Claude Code writes isSidechain on every conversation line; main-chain lines say false.
      return writeLine({ isSidechain: false, ...parsed.data, ...envelope }, isPersonsLine(parsed.data));
    },
    appendTombstone(tombstoneOf: string, reason: string): Promise<void> {
      const line = { type: "tombstone", sessionId: options.sessionId, timestamp: now().toISOString(), tombstoneOf, reason };
      return writeLine({ ...line, cairnSchema: TRANSCRIPT_SCHEMA_VERSION }, false);
    },
    appendHookRuns(event: string, runs: readonly HookRunRecord[]): Promise<void> {
      const line = { type: "cairn-hooks", sessionId: options.sessionId, timestamp: now().toISOString(), event, runs };
      return writeLine({ ...line, cairnSchema: TRANSCRIPT_SCHEMA_VERSION }, false);
    },
    appendCheckpoint(messageUuid: string, commit: string): Promise<void> {
      const line = { type: "cairn-checkpoint", sessionId: options.sessionId, timestamp: now().toISOString(), messageUuid, commit };
      return writeLine({ ...line, cairnSchema: TRANSCRIPT_SCHEMA_VERSION }, false);
    },
    flush(): Promise<void> {
      return enqueue(async () => {
        if (handle !== undefined && unsyncedWrites && fsync !== "never") await sync(handle);
      });
    },
    async close(): Promise<void> {
      if (closed) return queue.then(() => undefined);
      closed = true;
      return enqueue(async () => {
        if (handle === undefined) return;
        const file = handle;
        handle = undefined;
        try {
          if (unsyncedWrites && fsync !== "never") await sync(file);
        } finally {
          await file.close();
        }
      });
    },
  };
}

/** User lines that are not pure tool results: what a person typed, or what the session cannot rebuild. */
function isPersonsLine(message: ConversationMessage): boolean {
  if (message.type !== "user") return false;
  const content = message.message.content;
  return typeof content === "string" || !content.every((block) => block.type === "tool_result");
}

async function writeWhole(file: FileHandle, text: string): Promise<void> {
  const bytes = Buffer.from(text, "utf8");
  let written = 0;
  while (written < bytes.length) {
    const result = await file.write(bytes, written, bytes.length - written, null);
    written += result.bytesWritten;
  }
}

async function syncDirectory(path: string): Promise<void> {
  const directory = await open(path, "r");
  try {
    await directory.sync();
  } finally {
    await directory.close();
  }
}
