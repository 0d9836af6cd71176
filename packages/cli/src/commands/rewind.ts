import { randomUUID } from "node:crypto";
import { createCheckpointStore, findSessionTranscript, forkSession, loadTranscript, type LoadedTranscript } from "@cairn/core/node";
import { readEnv } from "../env.ts";
import { CommandUsageError, cairnVersion, parseCommandArgs, type CommandIo } from "./transcript.ts";

export const REWIND_HELP = `Usage:
  cairn rewind <session-id> <message-uuid> [--mode files|conversation|both] [--cwd <dir>]
      files:        restore the workspace files to how they were when that message was written (the
                    first checkpoint taken at or after it: checkpoints are taken just before a prompt's
                    first change); a checkpoint of the current files is taken first, to undo.
      conversation: fork the session, ending at that message, as a new session (printed).
      both:         the default.
`;

type RewindMode = "files" | "conversation" | "both";
const MODES: readonly RewindMode[] = ["files", "conversation", "both"];

/** `cairn rewind …`; returns the exit code (0 ok, 1 failed, 2 usage). */
export async function runRewindCommand(argv: string[], io: CommandIo): Promise<number> {
  try {
    const { values, positionals } = parseCommandArgs(argv, {
      mode: { type: "string", default: "both" },
      cwd: { type: "string" },
      help: { type: "boolean", short: "h", default: false },
    });
    if (values.help) {
      io.stdout(REWIND_HELP);
      return 0;
    }
    const [sessionId, messageUuid, ...extra] = positionals;
    if (sessionId === undefined || messageUuid === undefined || extra.length > 0) {
      throw new CommandUsageError("rewind takes a session id and a message uuid");
    }
    const mode = MODES.find((candidate) => candidate === values.mode);
    if (mode === undefined) throw new CommandUsageError(`--mode must be files, conversation or both, not "${values.mode}"`);
    const { cairnHome } = readEnv(io.env);
    const path = await findSessionTranscript(cairnHome, sessionId, values.cwd);
    if (path === undefined) {
      io.stderr(`cairn rewind: no session ${sessionId}\n`);
      return 1;
    }
    const transcript = await loadTranscript(path, { scope: "all" });
    const position = transcript.messages.findIndex((message) => message.uuid === messageUuid);
    // Checked before anything changes.
    if (position < 0) {
      io.stderr(`cairn rewind: no message ${messageUuid} in the conversation of session ${sessionId}\n`);
      return 1;
    }

    if (mode !== "conversation") {
      const commit = checkpointAtOrAfter(transcript, position);
      const workspaceRoot = transcript.meta?.cwd ?? values.cwd;
      if (commit === undefined) {
        io.stdout(`No checkpoint was taken after message ${messageUuid}: the agent has not changed the files since; nothing to restore\n`);
      } else if (workspaceRoot === undefined) {
        io.stderr("cairn rewind: the session records no workspace directory; pass --cwd\n");
        return 1;
      } else {
        const store = createCheckpointStore({ cairnHome, workspaceRoot });
        const restored = await store.restoreFiles(commit);
        io.stdout(`Restored files in ${workspaceRoot} to checkpoint ${restored.restored.slice(0, 12)}\n`);
        io.stdout(`  the files as they were before are checkpoint ${restored.backup} (cairn rewind can restore it)\n`);
      }
    }
    if (mode !== "files") {
      const forked = await forkSession(path, messageUuid, randomUUID(), {
        cairnHome,
        version: cairnVersion(),
        ...(values.cwd === undefined ? {} : { cwd: values.cwd }),
      });
      io.stdout(`Forked the conversation up to ${messageUuid} as session ${forked.sessionId}\n`);
      io.stdout(`  resume it with: cairn -p "<prompt>" --resume ${forked.sessionId}\n`);
    }
    return 0;
  } catch (error) {
    if (error instanceof CommandUsageError) {
      io.stderr(`cairn rewind: ${error.message}\n${REWIND_HELP}`);
      return 2;
    }
    io.stderr(`cairn rewind: ${(error as Error).message}\n`);
    return 1;
  }
}

/**
 * The files as they were at the message at `position`: a checkpoint is taken just before a prompt's
 * first change, so that is the first checkpoint recorded for a message at or after it. None: the
 * agent has changed nothing since.
 */
function checkpointAtOrAfter(transcript: LoadedTranscript, position: number): string | undefined {
  const commits = new Map(transcript.checkpoints.map((checkpoint) => [checkpoint.messageUuid, checkpoint.commit]));
  for (const message of transcript.messages.slice(position)) {
    const commit = commits.get(message.uuid);
    if (commit !== undefined) return commit;
  }
  return undefined;
}
