import { stat } from "node:fs/promises";
import { repairForResume, type ConversationMessage } from "@cairn/core";
import { assertSessionId, listTranscriptFiles, loadTranscript, sessionTranscriptPath } from "@cairn/core/node";
import type { Runtime } from "@cairn/api/runtime";
import type { PrintArgs } from "./args.ts";

/** `--resume <id>` or `--continue`: the session to go on with and its conversation, repaired for a new turn (undefined: a new session). */
export async function resolveSession(args: PrintArgs, runtime: Runtime): Promise<{ sessionId: string; history: ConversationMessage[] } | undefined> {
  let sessionId = args.resume;
  if (!sessionId && args.continueLast) sessionId = await newestSession(runtime);
  if (!sessionId) {
    if (args.continueLast) throw new Error("--continue: there is no earlier session in this directory");
    return undefined;
  }
  try {
    assertSessionId(sessionId);
  } catch {
    throw new Error(`--resume: "${sessionId}" is not a session id`);
  }
  const path = sessionTranscriptPath({ cairnHome: runtime.cairnHome, cwd: runtime.workspaceRoot, sessionId });
  const loaded = await loadTranscript(path, { scope: "since-last-compact" }).catch((error: NodeJS.ErrnoException) => {
    if (error.code === "ENOENT") throw new Error(`--resume: no session ${sessionId} in ${runtime.workspaceRoot}`);
    throw error;
  });
  return { sessionId, history: repairForResume(loaded.messages) };
}

/** `--continue`: the session of this workspace written to last. */
async function newestSession(runtime: Runtime): Promise<string | undefined> {
  let newest: { id: string; mtime: number } | undefined;
  for (const file of await listTranscriptFiles(runtime.cairnHome, runtime.workspaceRoot)) {
    const { mtimeMs } = await stat(file.path);
    if (!newest || mtimeMs > newest.mtime) newest = { id: file.sessionId, mtime: mtimeMs };
  }
  return newest?.id;
}
