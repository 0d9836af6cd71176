import type { SessionStore } from "../session-store/session-store.ts";
import type { SessionSummary } from "../router/types.ts";
import type { WorktreeRecord } from "../worktree/worktree-registry.ts";
import type { LiveSession } from "./live-session.ts";

type StoredSession = Awaited<ReturnType<SessionStore["list"]>>[number];

/**
 * The session list: every stored transcript, with what a loaded session knows instead where one is live
 * (title, activity, running), each marked with its worktree if it has one; the most recent first.
 */
export function sessionSummaries(
  stored: readonly StoredSession[],
  live: Iterable<Pick<LiveSession, "sessionId" | "title" | "updatedAt" | "running" | "messageCount">>,
  worktrees: ReadonlyMap<string, WorktreeRecord>,
): SessionSummary[] {
  const summaries = new Map<string, SessionSummary>();
  for (const entry of stored) {
    summaries.set(entry.sessionId, {
      sessionId: entry.sessionId,
      title: entry.title ?? entry.firstPrompt ?? "Untitled session",
      updatedAt: entry.lastActivityAt,
      running: false,
      messageCount: entry.messageCount,
    });
  }
  for (const session of live) {
    summaries.set(session.sessionId, {
      sessionId: session.sessionId,
      title: session.title,
      updatedAt: session.updatedAt,
      running: session.running,
      messageCount: session.messageCount,
    });
  }
  for (const [sessionId, summary] of summaries) {
    const worktree = worktrees.get(sessionId);
    if (worktree) summary.worktree = { branch: worktree.branch, base: worktree.base, discarded: worktree.discardedAt !== undefined };
  }
  return [...summaries.values()].sort((left, right) => right.updatedAt.localeCompare(left.updatedAt));
}
