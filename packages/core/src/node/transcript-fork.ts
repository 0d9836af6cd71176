import { open, rm, stat } from "node:fs/promises";
import { dirname, resolve } from "node:path";
import type { ConversationMessage } from "../schema/messages.ts";
import type { CheckpointLine, SessionMetaLine } from "../schema/transcript.ts";
import { linearize } from "../session/linearize.ts";
import type { LoadReport } from "../session/transcript-index.ts";
import { isNotFound } from "./transcript-list.ts";
import { loadTranscript } from "./transcript-reader.ts";
import { TranscriptStoreError, createJsonlTranscriptStore, sessionTranscriptPath, type FsyncPolicy } from "./transcript-store.ts";

export interface WriteSessionOptions {
  cairnHome: string;
  /** Cairn's version, written on every line; default "unknown". */
  version?: string;
  fsync?: FsyncPolicy;
  now?: () => Date;
  signal?: AbortSignal;
}

export interface NewSession {
  sessionId: string;
  cwd: string;
  title: string | undefined;
  forkedFrom?: SessionMetaLine["forkedFrom"];
  importedFrom?: SessionMetaLine["importedFrom"];
  messages: readonly ConversationMessage[];
  checkpoints?: readonly CheckpointLine[];
}

export interface WrittenSession {
  sessionId: string;
  path: string;
  messageCount: number;
}

/** Writes a whole conversation as a new session file, re-linked as one chain; refuses to overwrite one. */
export async function writeNewSession(session: NewSession, options: WriteSessionOptions): Promise<WrittenSession> {
  const path = sessionTranscriptPath({ cairnHome: options.cairnHome, cwd: session.cwd, sessionId: session.sessionId });
  if (await exists(path)) {
    throw new TranscriptStoreError("session-exists", `Session ${session.sessionId} already exists at ${path}`);
  }
  const store = createJsonlTranscriptStore({
    cairnHome: options.cairnHome,
    cwd: session.cwd,
    sessionId: session.sessionId,
    version: options.version ?? "unknown",
    // One sync at the end instead of one per prompt: nothing is acknowledged line by line here.
    fsync: "never",
    ...(session.title === undefined ? {} : { title: session.title }),
    ...(session.forkedFrom === undefined ? {} : { forkedFrom: session.forkedFrom }),
    ...(session.importedFrom === undefined ? {} : { importedFrom: session.importedFrom }),
    ...(options.now === undefined ? {} : { now: options.now }),
  });
  let completed = false;
  try {
    // Queued without awaiting each: the store's queue keeps the order; any failure rejects the whole.
    const writes: Promise<void>[] = [];
    const kept = new Set<string>();
    for (const message of linearize(session.messages)) {
      options.signal?.throwIfAborted();
      writes.push(store.appendMessage(message));
      kept.add(message.uuid);
    }
    for (const checkpoint of session.checkpoints ?? []) {
      if (kept.has(checkpoint.messageUuid)) writes.push(store.appendCheckpoint(checkpoint.messageUuid, checkpoint.commit));
    }
    await Promise.all(writes);
    completed = true;
  } finally {
    await store.close().catch(() => undefined);
    // A half-written new session is worse than none.
    if (!completed) await rm(path, { force: true });
  }
  if ((options.fsync ?? "user-messages") !== "never") await syncFileAndDirectory(path);
  return { sessionId: session.sessionId, path, messageCount: session.messages.length };
}

export interface ForkResult extends WrittenSession {
  report: LoadReport;
}

/**
 * A new session holding the conversation up to `atUuid` (inclusive; a response is atomic, so forking
 * at any of its lines keeps the whole response and its tool results). Uuids are kept, the meta line
 * records `forkedFrom`, and the checkpoints of the kept messages come along for `cairn rewind`.
 */
export async function forkSession(
  sourcePath: string,
  atUuid: string,
  newSessionId: string,
  options: Partial<WriteSessionOptions> & { cwd?: string } = {},
): Promise<ForkResult> {
  const source = await loadTranscript(sourcePath, { scope: "all", leafUuid: atUuid, signal: options.signal });
  const cwd = options.cwd ?? source.meta?.cwd;
  if (cwd === undefined) throw new TranscriptStoreError("missing-cwd", `${sourcePath} records no working directory`);
  const sourceSessionId = source.meta?.sessionId ?? sessionIdOfPath(sourcePath);
  const written = await writeNewSession(
    {
      sessionId: newSessionId,
      cwd,
      title: source.title,
      forkedFrom: { sessionId: sourceSessionId, messageUuid: atUuid },
      messages: source.messages,
      checkpoints: source.checkpoints,
    },
    {
      ...options,
      // By default the fork goes beside its source: $CAIRN_HOME/projects/<dir>/<id>.jsonl.
      cairnHome: options.cairnHome ?? dirname(dirname(dirname(resolve(sourcePath)))),
      version: options.version ?? source.meta?.version ?? "unknown",
    },
  );
  return { ...written, report: source.report };
}

function sessionIdOfPath(path: string): string {
  const name = path.split(/[\\/]/).pop() ?? path;
  return name.endsWith(".jsonl") ? name.slice(0, -6) : name;
}

async function exists(path: string): Promise<boolean> {
  try {
    await stat(path);
    return true;
  } catch (error) {
    if (isNotFound(error)) return false;
    throw error;
  }
}

async function syncFileAndDirectory(path: string): Promise<void> {
  for (const target of [path, dirname(path)]) {
    const handle = await open(target, "r");
    try {
      await handle.sync();
    } finally {
      await handle.close();
    }
  }
}
