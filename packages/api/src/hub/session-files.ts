import { TranscriptIndexError } from "@cairn/core";
import type { ConversationMessage } from "@cairn/core/schema";
import type { ChangedFile, CheckpointStore, RestoreResult } from "@cairn/core/node";
import type { Runtime } from "../runtime/runtime-types.ts";
import { ApiError } from "../router/errors.ts";
import type { SessionStore } from "../session-store/session-store.ts";

export type LoadedSession = { history: ConversationMessage[]; title?: string; updatedAt?: string };

/** A session of this workspace from its transcript, or undefined when there is none. */
export async function loadSession(runtime: Runtime, sessionId: string): Promise<LoadedSession | undefined> {
  const loaded = await runtime.transcripts.load(sessionId, { scope: "all" });
  if (!loaded) return undefined;
  const updatedAt = loaded.messages.at(-1)?.timestamp;
  return {
    history: loaded.messages,
    ...(loaded.title ? { title: loaded.title } : {}),
    ...(updatedAt ? { updatedAt } : {}),
  };
}

/** A new session holding the conversation up to `messageUuid` (inclusive). */
export async function forkAt(runtime: Runtime, sessionId: string, messageUuid: string, newSessionId: string): Promise<void> {
  try {
    await runtime.transcripts.fork(sessionId, messageUuid, newSessionId);
  } catch (error) {
    throw asMessageNotFound(error, messageUuid);
  }
}

/**
 * The checkpoint holding the workspace files as they were when the message was written. A checkpoint
 * is taken just before a prompt's first change, so it is the first one recorded at or after the
 * message; with none, nothing has changed the files since (null).
 */
export async function checkpointAtMessage(transcripts: SessionStore, sessionId: string, messageUuid: string): Promise<string | null> {
  let transcript: Awaited<ReturnType<SessionStore["load"]>>;
  try {
    transcript = await transcripts.load(sessionId, { scope: "all" });
  } catch (error) {
    throw asMessageNotFound(error, messageUuid);
  }
  if (!transcript) throw new ApiError("message_not_found", `No message ${messageUuid} in this session's transcript`);
  const position = transcript.messages.findIndex((message) => message.uuid === messageUuid);
  if (position < 0) throw new ApiError("message_not_found", `No message ${messageUuid} in this session's transcript`);
  const commits = new Map(transcript.checkpoints.map((checkpoint) => [checkpoint.messageUuid, checkpoint.commit]));
  for (const message of transcript.messages.slice(position)) {
    const commit = commits.get(message.uuid);
    if (commit !== undefined) return commit;
  }
  return null;
}

/** Restores the workspace files to how they were when the message was written (null: nothing to restore). */
export async function rewindFiles(store: CheckpointStore, transcripts: SessionStore, sessionId: string, messageUuid: string): Promise<RestoreResult | null> {
  const commit = await checkpointAtMessage(transcripts, sessionId, messageUuid);
  return commit === null ? null : store.restoreFiles(commit);
}

/** What `rewindFiles` would change, without changing it. */
export async function rewindFilesPreview(
  store: CheckpointStore,
  transcripts: SessionStore,
  sessionId: string,
  messageUuid: string,
): Promise<{ checkpoint: string | null; files: ChangedFile[] }> {
  const commit = await checkpointAtMessage(transcripts, sessionId, messageUuid);
  if (commit === null) return { checkpoint: null, files: [] };
  const files = await store.changedSince(commit);
  return { checkpoint: commit, files: files.sort((left, right) => left.path.localeCompare(right.path)) };
}

function asMessageNotFound(error: unknown, messageUuid: string): unknown {
  if (
    error instanceof TranscriptIndexError ||
    (error as NodeJS.ErrnoException).code === "ENOENT" ||
    (error as { code?: unknown }).code === "session-not-found"
  ) {
    return new ApiError("message_not_found", `No message ${messageUuid} in this session's transcript`, { cause: error });
  }
  return error;
}
