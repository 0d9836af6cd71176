import { randomUUID } from "node:crypto";
import {
  createCheckpointStore,
  findSessionTranscript,
  forkSession,
  loadTranscript,
  type LoadedTranscript,
} from "@cairn/core/node";
import { readEnv } from "../env.ts";
import { CommandUsageError, cairnVersion, parseCommandArgs, type CommandIo } from "./transcript.ts";

export const REWIND_HELP = `Usage:
  cairn rewind <session-id> <message-uuid> [--mode files|conversation|both] [--cwd <dir>]
      files:        restore the workspace files to the checkpoint taken at that message (or the
                    nearest earlier one); a checkpoint of the current files is taken first, to undo.
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
    // Fails with a clear message when the uuid is not in the session, before anything changes.
    const upToMessage = await loadTranscript(path, { scope: "all", leafUuid: messageUuid });

    if (mode !== "conversation") {
      const commit = checkpointAtOrBefore(upToMessage);
      if (commit === undefined) {
        io.stderr(`cairn rewind: no file checkpoint was recorded at or before message ${messageUuid}\n`);
        return 1;
      }
      const workspaceRoot = upToMessage.meta?.cwd ?? values.cwd;
      if (workspaceRoot === undefined) {
        io.stderr("cairn rewind: the session records no workspace directory; pass --cwd\n");
        return 1;
      }
      const store = createCheckpointStore({ cairnHome, workspaceRoot });
      const restored = await store.restoreFiles(commit);
      io.stdout(`Restored files in ${workspaceRoot} to checkpoint ${restored.restored.slice(0, 12)}\n`);
      io.stdout(`  the files as they were before are checkpoint ${restored.backup} (cairn rewind can restore it)\n`);
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

/** The checkpoint recorded for the newest message, at or before the target, that has one. */
function checkpointAtOrBefore(loaded: LoadedTranscript): string | undefined {
  const commits = new Map(loaded.checkpoints.map((checkpoint) => [checkpoint.messageUuid, checkpoint.commit]));
  for (let index = loaded.messages.length - 1; index >= 0; index--) {
    const commit = commits.get(loaded.messages[index]!.uuid);
    if (commit !== undefined) return commit;
  }
  return undefined;
}
