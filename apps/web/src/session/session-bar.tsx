"use client";

import { useQuery } from "@tanstack/react-query";
import { useEffect, useState } from "react";
import { useTRPC } from "@/trpc/client";
import { ShareButton } from "../share/share-button";
import { TimelineLink } from "../share/timeline-link";

type Props = {
  activeSessionId: string | null;
  title: string;
  canFork: boolean;
  onSelect(sessionId: string): void;
  onNew(): void;
  /** Starts a session in a git worktree and branch of its own. */
  onNewWorktree(): void;
  creatingWorktree: boolean;
  onFork(): void;
};

/** Sessions: switch (resume), start a new one, fork the current one, share it, open its timeline. */
export function SessionBar({ activeSessionId, title, canFork, onSelect, onNew, onNewWorktree, creatingWorktree, onFork }: Props) {
  const trpc = useTRPC();
  const [open, setOpen] = useState(false);
  const sessions = useQuery({ ...trpc.session.list.queryOptions(), refetchInterval: open ? 3_000 : false });
  const { refetch } = sessions;
  useEffect(() => {
    if (open) void refetch();
  }, [open, refetch]);
  return (
    <div className="session-bar" data-testid="session-list">
      <div className="session-bar-row">
        <button type="button" className="session-toggle" data-testid="session-list-toggle" aria-expanded={open} onClick={() => setOpen(!open)} title="Sessions">
          <span className="session-title">{title}</span> <span aria-hidden>▾</span>
        </button>
        <span className="toolbar">
          <button type="button" className="small" data-testid="session-new" onClick={onNew} title="Start a new session">
            New
          </button>
          <button
            type="button"
            className="small"
            data-testid="session-new-worktree"
            onClick={onNewWorktree}
            disabled={creatingWorktree}
            title="Start a new session in a git worktree and branch of its own, so it can work beside other sessions"
          >
            {creatingWorktree ? "Creating worktree…" : "New in worktree"}
          </button>
          <button
            type="button"
            className="small"
            data-testid="session-fork"
            onClick={onFork}
            disabled={!canFork}
            title="Fork this session at its latest message"
          >
            Fork
          </button>
          <ShareButton sessionId={activeSessionId} />
          <TimelineLink sessionId={activeSessionId} />
        </span>
      </div>
      {open ? (
        <div className="session-popover" role="listbox" aria-label="Sessions">
          {sessions.isPending ? <p className="muted">Loading sessions…</p> : null}
          {sessions.isError ? <p className="form-error">Could not load sessions: {sessions.error.message}</p> : null}
          {sessions.data?.length === 0 ? <p className="muted">No sessions yet.</p> : null}
          <ul>
            {sessions.data?.map((session) => (
              <li key={session.sessionId}>
                <button
                  type="button"
                  role="option"
                  aria-selected={session.sessionId === activeSessionId}
                  className={`session-item${session.sessionId === activeSessionId ? " active" : ""}`}
                  data-testid="session-list-item"
                  data-session-id={session.sessionId}
                  data-worktree={session.worktree?.branch ?? ""}
                  onClick={() => {
                    onSelect(session.sessionId);
                    setOpen(false);
                  }}
                >
                  <span className="session-item-title">{session.title}</span>
                  <span className="session-item-meta">
                    {session.worktree ? `${session.worktree.discarded ? "discarded worktree" : session.worktree.branch} · ` : ""}
                    {session.running ? "running · " : ""}
                    {session.messageCount} messages · {new Date(session.updatedAt).toLocaleString()}
                  </span>
                </button>
              </li>
            ))}
          </ul>
        </div>
      ) : null}
    </div>
  );
}
