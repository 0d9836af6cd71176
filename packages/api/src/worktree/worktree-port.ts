import type { SessionHub } from "../hub/session-hub.ts";
import { GitService } from "../git/git-service.ts";
import type { WorktreePort, WorktreeView } from "../router/context.ts";
import { ApiError } from "../router/errors.ts";
import type { WorktreeRecord } from "./worktree-registry.ts";
import type { WorktreeSessions } from "./worktree-sessions.ts";

const viewOf = (record: WorktreeRecord): WorktreeView => ({
  sessionId: record.sessionId,
  branch: record.branch,
  base: record.base,
  path: record.path,
  discarded: record.discardedAt !== undefined,
});

/** The worktree procedures over the hub (which runs each session in its worktree) and the worktrees themselves. */
export function createWorktreePort(hub: SessionHub, worktrees: WorktreeSessions): WorktreePort {
  const assertIdle = (sessionId: string, action: string) => {
    if (hub.liveSession(sessionId)?.running)
      throw new ApiError("session_busy", `Wait for the agent to finish (or interrupt it) before you ${action} its worktree`);
  };
  return {
    async create(options) {
      const { sessionId, worktree } = await hub.createInWorktree(options);
      return { sessionId, worktree: viewOf(worktree) };
    },
    async get(sessionId) {
      const record = await worktrees.record(sessionId);
      return record ? viewOf(record) : null;
    },
    async merge(sessionId) {
      assertIdle(sessionId, "merge");
      return worktrees.merge(sessionId);
    },
    async discard(sessionId) {
      assertIdle(sessionId, "discard");
      // The session stops first: nothing may run in the worktree while it is removed.
      const record = await worktrees.record(sessionId);
      if (record && record.discardedAt === undefined) await hub.release(sessionId);
      return viewOf(await worktrees.discard(sessionId));
    },
    async git(sessionId) {
      const runtime = await worktrees.runtime(sessionId);
      if (!runtime) return undefined;
      return new GitService({ repository: runtime.workspace.git, model: { client: runtime.model.client, name: () => runtime.store.getState().model } });
    },
  };
}
