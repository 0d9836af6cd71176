import type { CheckpointStore, RestoreResult } from "@cairn/core/node";
import { CheckpointError } from "@cairn/core/node";
import { ApiError } from "../router/errors.ts";
import type { RewindMode, RewindResult } from "../router/types.ts";
import type { SessionStore } from "../session-store/session-store.ts";
import type { LiveSession } from "./live-session.ts";
import { promptText } from "./session-derive.ts";
import { rewindFiles } from "./session-files.ts";

type RewindHost = {
  transcripts: SessionStore;
  /** The file checkpoints of the checkout the session runs in (undefined when turned off). */
  checkpoints: () => Promise<CheckpointStore | undefined>;
  /** A new session holding the conversation up to `parentUuid` (an empty one when null); returns its id. */
  forkBefore: (parentUuid: string | null) => Promise<string>;
};

/**
 * Rewinds a session to just before `messageUuid`: the files (to the checkpoint of that moment), the conversation
 * (a fork holding what came before it), or both. The prompt's text comes back so the user can edit and resend it.
 */
export async function rewindSession(session: LiveSession, messageUuid: string, mode: RewindMode, host: RewindHost): Promise<RewindResult> {
  if (session.running) throw new ApiError("session_busy", "Interrupt the running prompt before rewinding");
  await session.flush();
  const message = session.messages().find((candidate) => candidate.uuid === messageUuid);
  if (!message) throw new ApiError("message_not_found", `No message ${messageUuid} in session ${session.sessionId}`);
  const result: RewindResult = { sessionId: null, restoredCheckpoint: null, backupCheckpoint: null, prompt: promptText(message) };
  if (mode !== "conversation") {
    const checkpoints = await host.checkpoints();
    if (!checkpoints) throw new ApiError("not_implemented", "File checkpoints are turned off on this server");
    const restored = await rewindFiles(checkpoints, host.transcripts, session.sessionId, messageUuid);
    result.restoredCheckpoint = restored?.restored ?? null;
    result.backupCheckpoint = restored?.backup ?? null;
  }
  if (mode !== "files") result.sessionId = await host.forkBefore(message.parentUuid ?? null);
  return result;
}

/** Puts the files back as a checkpoint holds them (undoing a rewind with its backup); keeps a backup of the present too. */
export async function restoreCheckpoint(checkpoints: CheckpointStore | undefined, commit: string): Promise<RestoreResult> {
  if (!checkpoints) throw new ApiError("not_implemented", "File checkpoints are turned off on this server");
  try {
    return await checkpoints.restoreFiles(commit);
  } catch (error) {
    if (error instanceof CheckpointError && error.code === "unknown-checkpoint")
      throw new ApiError("message_not_found", `No checkpoint ${commit}`, { cause: error });
    throw error;
  }
}
