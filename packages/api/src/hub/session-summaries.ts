import type { SessionStore } from "../session-store/session-store.ts";
import type { SessionSummary } from "../router/types.ts";
import type { WorktreeRecord } from "../worktree/worktree-registry.ts";
import type { LiveSession } from "./live-session.ts";
import { NEW_SESSION_TITLE } from "./session-derive.ts";

type StoredSession = Awaited<ReturnType<SessionStore["list"]>>[number];

type LiveSummary = Pick<LiveSession, "sessionId" | "title" | "updatedAt" | "running" | "messageCount">;

/**
 * The session list: every stored transcript, with what a loaded session knows instead where one is live
 * (title, activity, running), each marked with its worktree if it has one; the most recent first. Made for
 * 10,000 stored sessions: one object per session, the live ones found by id, times compared as the ISO
 * strings they are (the store's own order mostly holds, so the sort has little to do). A `followed` session (live
 * here only as a follower's copy of a session another node runs) is listed as stored, when it is stored.
 */
export function sessionSummaries(
  stored: readonly StoredSession[],
  live: Iterable<LiveSummary>,
  worktrees: ReadonlyMap<string, WorktreeRecord>,
  followed?: ReadonlySet<string>,
): SessionSummary[] {
  const liveById = new Map<string, LiveSummary>();
  for (const session of live) liveById.set(session.sessionId, session);
  const summaries: SessionSummary[] = [];
  const add = (summary: SessionSummary) => {
    const worktree = worktrees.size > 0 ? worktrees.get(summary.sessionId) : undefined;
    if (worktree) summary.worktree = { branch: worktree.branch, base: worktree.base, discarded: worktree.discardedAt !== undefined };
    summaries.push(summary);
  };
  const fromLive = (session: LiveSummary): SessionSummary => ({
    sessionId: session.sessionId,
    title: session.title,
    updatedAt: session.updatedAt,
    running: session.running,
    messageCount: session.messageCount,
  });
  for (const entry of stored) {
    const session = liveById.get(entry.sessionId);
    if (session) liveById.delete(entry.sessionId);
    if (session && !followed?.has(entry.sessionId)) {
      add(fromLive(session));
      continue;
    }
    add({
      sessionId: entry.sessionId,
      // Nothing written yet: as its owner lists it.
      title: entry.title ?? entry.firstPrompt ?? (entry.messageCount === 0 ? NEW_SESSION_TITLE : "Untitled session"),
      updatedAt: entry.lastActivityAt,
      running: entry.running ?? false,
      messageCount: entry.messageCount,
    });
  }
  for (const session of liveById.values()) add(fromLive(session));
  return summaries.sort((left, right) => (left.updatedAt < right.updatedAt ? 1 : left.updatedAt > right.updatedAt ? -1 : 0));
}
