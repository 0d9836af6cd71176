import { createRuntime } from "../runtime/create-runtime.ts";
import type { Runtime, RuntimeOptions } from "../runtime/runtime-types.ts";
import type { SessionStore } from "../session-store/session-store.ts";
import { WorktreeSessions } from "./worktree-sessions.ts";

/**
 * Worktree sessions for a server's workspace: each session's runtime is the server's, rooted in its
 * worktree (tools, sandbox, memory files, hooks and git there), with the workspace's trust and the
 * workspace's transcript store, so its sessions are listed, resumed and shared with the others.
 */
export function createWorktreeSessions(options: Omit<RuntimeOptions, "workspaceRoot" | "trusted">, workspaceRuntime: Runtime): WorktreeSessions {
  return new WorktreeSessions({
    workspaceRoot: workspaceRuntime.workspaceRoot,
    cairnHome: workspaceRuntime.cairnHome,
    createRuntime: (root, repository) =>
      createRuntime({
        ...options,
        workspaceRoot: root,
        trusted: workspaceRuntime.trusted,
        worktreeRepository: repository,
        sessionStore: () => sharedStore(workspaceRuntime.transcripts),
      }),
  });
}

/** The workspace's store as a worktree runtime sees it: closing that runtime leaves the store open. */
function sharedStore(store: SessionStore): SessionStore {
  return {
    kind: store.kind,
    openTranscript: (sessionId) => store.openTranscript(sessionId),
    load: (sessionId, options) => store.load(sessionId, options),
    list: (options) => store.list(options),
    fork: (sourceSessionId, atUuid, newSessionId) => store.fork(sourceSessionId, atUuid, newSessionId),
    writeSession: (session) => store.writeSession(session),
    // A store without files keeps subagent sidechains beside the session (PostgreSQL): a worktree session's too.
    ...(store.openSidechain ? { openSidechain: store.openSidechain.bind(store) } : {}),
    transcriptPath: (sessionId) => store.transcriptPath(sessionId),
    close: async () => undefined,
  };
}
