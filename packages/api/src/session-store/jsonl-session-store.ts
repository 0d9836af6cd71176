import { createJsonlTranscriptStore, forkSession, listSessions, loadTranscript, sessionTranscriptPath, writeNewSession } from "@cairn/core/node";
import type { SessionStore, SessionStoreLocation } from "./session-store.ts";

/** The embedded default: one append-only JSONL file per session, `$CAIRN_HOME/projects/<cwd>/<sessionId>.jsonl`. */
export function createJsonlSessionStore(location: SessionStoreLocation): SessionStore {
  const { cairnHome, workspaceRoot: cwd, version } = location;
  const transcriptPath = (sessionId: string) => sessionTranscriptPath({ cairnHome, cwd, sessionId });
  return {
    kind: "jsonl",
    openTranscript: (sessionId) => createJsonlTranscriptStore({ cairnHome, cwd, sessionId, version }),
    async load(sessionId, options = {}) {
      try {
        return await loadTranscript(transcriptPath(sessionId), { scope: options.scope ?? "all", ...options });
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code === "ENOENT") return undefined;
        throw error;
      }
    },
    async list(options = {}) {
      const files = await listSessions(cairnHome, cwd, options.signal ? { signal: options.signal } : {});
      return files.map((file) => ({
        sessionId: file.sessionId,
        title: file.title,
        firstPrompt: file.firstPrompt,
        lastActivityAt: file.lastActivityAt,
        messageCount: file.messageEstimate,
      }));
    },
    async fork(sourceSessionId, atUuid, newSessionId) {
      await forkSession(transcriptPath(sourceSessionId), atUuid, newSessionId, { cairnHome, version, cwd });
    },
    async writeSession(session) {
      await writeNewSession({ ...session, cwd }, { cairnHome, version });
    },
    transcriptPath,
    async close() {},
  };
}
