"use client";

import { useMutation, useQuery } from "@tanstack/react-query";
import dynamic from "next/dynamic";
import { useEffect, useState, type Dispatch } from "react";
import { errorMessage } from "@/lib/errors";
import { useTRPC } from "@/trpc/client";
import type { RouterOutputs } from "@/trpc/types";
import type { PendingReview, PendingReviewAction } from "./pending-review";
import { PendingReviewList } from "./pending-review-list";
import styles from "./review.module.css";

const ReviewDiff = dynamic(() => import("./review-diff"), { ssr: false, loading: () => <div className="editor-loading">Loading diff…</div> });

type ChangedFile = RouterOutputs["changes"]["list"]["files"][number];

type Props = {
  sessionId: string | null;
  /** Bumped on every file change in the workspace, so the list follows the agent. */
  changeTick: number;
  review: PendingReview;
  dispatchReview: Dispatch<PendingReviewAction>;
  onClose(): void;
};

const statusLetter: Record<ChangedFile["status"], string> = { added: "A", modified: "M", deleted: "D" };

/** Every file the session changed since it started, its diff, reverts, and line comments for the agent. */
export function ChangesPanel({ sessionId, changeTick, review, dispatchReview, onClose }: Props) {
  const trpc = useTRPC();
  const changes = useQuery({ ...trpc.changes.list.queryOptions({ sessionId: sessionId ?? "-" }), enabled: sessionId !== null });
  const revertFile = useMutation(trpc.changes.revertFile.mutationOptions());
  const revertHunk = useMutation(trpc.changes.revertHunk.mutationOptions());
  const [selected, setSelected] = useState<string | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [draft, setDraft] = useState<{ path: string; line: number; code: string; text: string } | null>(null);
  const { refetch } = changes;

  // biome-ignore lint/correctness/useExhaustiveDependencies: changeTick is the trigger (a workspace file changed), not a value the effect reads
  useEffect(() => {
    if (!sessionId) return;
    const timer = setTimeout(() => void refetch(), 300);
    return () => clearTimeout(timer);
  }, [changeTick, sessionId, refetch]);

  const files = changes.data?.files ?? [];
  const file = files.find((candidate) => candidate.path === selected) ?? files[0];

  const afterRevert = async (work: Promise<unknown>) => {
    setError(null);
    try {
      await work;
    } catch (failure) {
      setError(errorMessage(failure));
    }
    await refetch();
  };

  return (
    <section className={styles.panel} data-testid="changes-panel" aria-label="Changes">
      <div className="panel-title-row">
        <span className="panel-title">Changes in this session</span>
        <span className="toolbar">
          <button type="button" className="small" onClick={() => void refetch()} data-testid="changes-refresh">
            Refresh
          </button>
          <button type="button" className="small" onClick={onClose}>
            Close
          </button>
        </span>
      </div>
      {error ? (
        <div className="notice-bar error" role="alert" data-testid="changes-error">
          <span>{error}</span>
          <button type="button" className="small" onClick={() => setError(null)}>
            Dismiss
          </button>
        </div>
      ) : null}
      {!sessionId ? <p className="muted">Start a session: the files its agent changes appear here.</p> : null}
      {changes.isError ? (
        <p className="form-error" role="alert">
          Could not load the changes: {changes.error.message}
        </p>
      ) : null}
      {changes.isSuccess && files.length === 0 ? (
        <p className="muted" data-testid="changes-empty">
          The agent has not changed any file in this session.
        </p>
      ) : null}
      <div className={styles.body}>
        <ul className={styles.fileList}>
          {files.map((candidate) => (
            <li key={candidate.path}>
              <button
                type="button"
                className={`${styles.fileButton}${candidate.path === file?.path ? ` ${styles.active}` : ""}`}
                data-testid="changes-file"
                data-path={candidate.path}
                data-status={candidate.status}
                onClick={() => setSelected(candidate.path)}
              >
                <span className={styles[candidate.status]}>{statusLetter[candidate.status]}</span> {candidate.path}
              </button>
            </li>
          ))}
        </ul>
        {file && sessionId ? (
          <div className={styles.fileView} data-testid="changes-file-view" data-path={file.path}>
            <div className={styles.fileHeader}>
              <span className={styles.path}>{file.path}</span>
              <button
                type="button"
                className="small"
                data-testid="changes-revert-file"
                disabled={revertFile.isPending}
                onClick={() => void afterRevert(revertFile.mutateAsync({ sessionId, path: file.path, expectedSha256: file.sha256 }))}
                title="Put the whole file back as it was when the session started"
              >
                Revert file
              </button>
            </div>
            {file.binary ? (
              <p className="muted">Binary or large file: no diff shown. Revert file still works.</p>
            ) : (
              <>
                <div className={styles.diff} data-testid="changes-diff">
                  <ReviewDiff
                    // One diff editor per file: @monaco-editor/react swaps each side's model on its own when the path
                    // changes, and Monaco's diff editor goes on diffing the previous pair (its marks land on the wrong lines).
                    key={file.path}
                    path={file.path}
                    original={file.before ?? ""}
                    modified={file.after ?? ""}
                    commentedLines={review.comments.filter((comment) => comment.path === file.path).map((comment) => comment.line)}
                    onLineClick={(line, code) =>
                      file.after !== null &&
                      // A second click on the same line keeps what was typed.
                      setDraft((current) =>
                        current && current.path === file.path && current.line === line ? current : { path: file.path, line, code, text: "" },
                      )
                    }
                  />
                </div>
                <ol className={styles.hunks}>
                  {file.hunks.map((hunk) => (
                    <li key={hunk.index} className={styles.hunk} data-testid="changes-hunk">
                      <span className="muted">
                        {hunk.afterLines.length > 0
                          ? `lines ${hunk.afterStart}–${hunk.afterStart + hunk.afterLines.length - 1}`
                          : `removed after line ${hunk.afterStart}`}
                        {` · −${hunk.beforeLines.length} +${hunk.afterLines.length}`}
                      </span>
                      <button
                        type="button"
                        className="small"
                        data-testid="changes-revert-hunk"
                        disabled={revertHunk.isPending || file.sha256 === null}
                        onClick={() =>
                          file.sha256 !== null &&
                          void afterRevert(revertHunk.mutateAsync({ sessionId, path: file.path, hunkIndex: hunk.index, expectedSha256: file.sha256 }))
                        }
                      >
                        Revert change
                      </button>
                    </li>
                  ))}
                </ol>
              </>
            )}
            {draft && draft.path === file.path ? (
              <form
                className={styles.commentForm}
                onSubmit={(event) => {
                  event.preventDefault();
                  dispatchReview({ type: "add", comment: draft });
                  setDraft(null);
                }}
              >
                <label className="muted" htmlFor="review-comment-input">
                  Comment on {draft.path}:{draft.line}
                </label>
                <code className={styles.code}>{draft.code}</code>
                <textarea
                  id="review-comment-input"
                  data-testid="review-comment-input"
                  value={draft.text}
                  autoFocus
                  rows={3}
                  onChange={(event) => setDraft({ ...draft, text: event.target.value })}
                />
                <span className="toolbar">
                  <button type="submit" className="small primary" data-testid="review-comment-add" disabled={draft.text.trim() === ""}>
                    Add comment
                  </button>
                  <button type="button" className="small" onClick={() => setDraft(null)}>
                    Cancel
                  </button>
                </span>
              </form>
            ) : (
              <p className="muted">Click a line on the right to comment on it.</p>
            )}
          </div>
        ) : null}
      </div>
      <PendingReviewList sessionId={sessionId} review={review} dispatchReview={dispatchReview} />
    </section>
  );
}
