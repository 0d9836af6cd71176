"use client";

import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useEffect, useState } from "react";
import { ActionButton } from "@/lib/action-button";
import { errorMessage } from "@/lib/errors";
import { useTRPC } from "@/trpc/client";
import styles from "./worktree.module.css";

/**
 * A worktree session's branch, with Merge (into the branch it came from) and Discard (worktree and
 * branch removed, after a confirmation). Renders nothing for a session of the main checkout.
 */
export function WorktreeBar({ sessionId, running }: { sessionId: string; running: boolean }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const worktree = useQuery(trpc.worktree.get.queryOptions({ sessionId }));
  const merge = useMutation(trpc.worktree.merge.mutationOptions());
  const discard = useMutation(trpc.worktree.discard.mutationOptions());
  const [confirming, setConfirming] = useState(false);
  const [notice, setNotice] = useState<string | null>(null);
  const [error, setError] = useState<string | null>(null);
  // biome-ignore lint/correctness/useExhaustiveDependencies: a new session starts with a clean bar
  useEffect(() => {
    setConfirming(false);
    setNotice(null);
    setError(null);
  }, [sessionId]);

  const view = worktree.data;
  if (!view) return null;
  const refresh = async () => {
    await Promise.all([
      queryClient.invalidateQueries({ queryKey: trpc.worktree.get.queryKey({ sessionId }) }),
      queryClient.invalidateQueries({ queryKey: trpc.git.pathKey() }),
      queryClient.invalidateQueries({ queryKey: trpc.session.list.queryKey() }),
    ]);
  };
  const act = async (work: () => Promise<string>) => {
    setError(null);
    setNotice(null);
    try {
      setNotice(await work());
    } catch (failure) {
      setError(errorMessage(failure));
    } finally {
      await refresh();
    }
  };
  const busy = merge.isPending || discard.isPending;

  return (
    <div className={styles.bar} data-testid="worktree-bar" data-branch={view.branch} data-discarded={view.discarded}>
      <div className={styles.row}>
        <span className="muted" title={view.path}>
          {view.discarded ? "Worktree discarded: " : "Worktree "}
          <code>{view.branch}</code> from <code>{view.base}</code>
        </span>
        {view.discarded ? null : (
          <span className="toolbar">
            <ActionButton
              className="small"
              testId="worktree-merge"
              disabled={busy || running}
              title={running ? "Wait for the agent to finish" : `Commit this session's work and merge ${view.branch} into ${view.base}`}
              onAction={() =>
                act(async () => {
                  const result = await merge.mutateAsync({ sessionId });
                  return `Merged ${result.branch} into ${result.base} (${result.commit.slice(0, 7)}).`;
                })
              }
            >
              {merge.isPending ? "Merging…" : `Merge into ${view.base}`}
            </ActionButton>
            <ActionButton className="small" testId="worktree-discard" disabled={busy || running} onAction={() => setConfirming(true)}>
              Discard
            </ActionButton>
          </span>
        )}
      </div>
      {confirming && !view.discarded ? (
        <div className={styles.row} role="alertdialog" aria-label="Discard the worktree">
          <span>Remove the worktree and delete {view.branch}, uncommitted work included?</span>
          <span className="toolbar">
            <ActionButton
              className="small danger"
              testId="worktree-discard-confirm"
              disabled={busy}
              onAction={() =>
                act(async () => {
                  setConfirming(false);
                  await discard.mutateAsync({ sessionId });
                  return `Discarded the worktree and ${view.branch}; the conversation stays readable.`;
                })
              }
            >
              Discard worktree
            </ActionButton>
            <ActionButton className="small" testId="worktree-discard-cancel" onAction={() => setConfirming(false)}>
              Keep
            </ActionButton>
          </span>
        </div>
      ) : null}
      {notice ? (
        <p className="muted" role="status" data-testid="worktree-notice">
          {notice}
        </p>
      ) : null}
      {error ? (
        <p className="form-error" role="alert" data-testid="worktree-error">
          {error}
        </p>
      ) : null}
    </div>
  );
}
