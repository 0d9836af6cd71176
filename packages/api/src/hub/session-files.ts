import { TranscriptIndexError } from "@cairn/core";
import type { ConversationMessage } from "@cairn/core/schema";
import {
  forkSession,
  loadTranscript,
  sessionTranscriptPath,
  type ChangedFile,
  type CheckpointStore,
  type LoadedTranscript,
  type RestoreResult,
} from "@cairn/core/node";
import type { Runtime } from "../runtime/create-runtime.ts";
import { ApiError } from "../router/errors.ts";

export type LoadedSession = { history: ConversationMessage[]; title?: string; updatedAt?: string };

/** A session of this workspace from its transcript, or undefined when there is none. */
export async function loadSession(runtime: Runtime, sessionId: string): Promise<LoadedSession | undefined> {
  const path = sessionTranscriptPath({ cairnHome: runtime.cairnHome, cwd: runtime.workspaceRoot, sessionId });
  let loaded: LoadedTranscript;
  try {
    loaded = await loadTranscript(path, { scope: "all" });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return undefined;
    throw error;
  }
  const updatedAt = loaded.messages.at(-1)?.timestamp;
  return {
    history: loaded.messages,
    ...(loaded.title ? { title: loaded.title } : {}),
    ...(updatedAt ? { updatedAt } : {}),
  };
}

/** A new session holding the conversation up to `messageUuid` (inclusive). */
export async function forkAt(runtime: Runtime, transcriptPath: string, messageUuid: string, newSessionId: string): Promise<void> {
  try {
    await forkSession(transcriptPath, messageUuid, newSessionId, { cairnHome: runtime.cairnHome, version: runtime.version, cwd: runtime.workspaceRoot });
  } catch (error) {
    throw asMessageNotFound(error, messageUuid);
  }
}

/**
 * The checkpoint holding the workspace files as they were when the message was written. A checkpoint
 * is taken just before a prompt's first change, so it is the first one recorded at or after the
 * message; with none, nothing has changed the files since (null).
 */
export async function checkpointAtMessage(transcriptPath: string, messageUuid: string): Promise<string | null> {
  let transcript: LoadedTranscript;
  try {
    transcript = await loadTranscript(transcriptPath, { scope: "all" });
  } catch (error) {
    throw asMessageNotFound(error, messageUuid);
  }
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
export async function rewindFiles(store: CheckpointStore, transcriptPath: string, messageUuid: string): Promise<RestoreResult | null> {
  const commit = await checkpointAtMessage(transcriptPath, messageUuid);
  return commit === null ? null : store.restoreFiles(commit);
}

/** What `rewindFiles` would change, without changing it. */
export async function rewindFilesPreview(
  store: CheckpointStore,
  transcriptPath: string,
  messageUuid: string,
): Promise<{ checkpoint: string | null; files: ChangedFile[] }> {
  const commit = await checkpointAtMessage(transcriptPath, messageUuid);
  if (commit === null) return { checkpoint: null, files: [] };
  const files = await store.changedSince(commit);
  return { checkpoint: commit, files: files.sort((left, right) => left.path.localeCompare(right.path)) };
}

function asMessageNotFound(error: unknown, messageUuid: string): unknown {
  if (error instanceof TranscriptIndexError || (error as NodeJS.ErrnoException).code === "ENOENT") {
    return new ApiError("message_not_found", `No message ${messageUuid} in this session's transcript`, { cause: error });
  }
  return error;
}
