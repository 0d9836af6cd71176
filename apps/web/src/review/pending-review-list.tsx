"use client";

import { useMutation } from "@tanstack/react-query";
import { useState, type Dispatch } from "react";
import { errorMessage } from "@/lib/errors";
import { useTRPC } from "@/trpc/client";
import type { PendingReview, PendingReviewAction } from "./pending-review";
import styles from "./review.module.css";

/** The comments waiting to go to the agent, and Send review: one user message with each file:line, its code and the comment. */
export function PendingReviewList({
  sessionId,
  review,
  dispatchReview,
}: {
  sessionId: string | null;
  review: PendingReview;
  dispatchReview: Dispatch<PendingReviewAction>;
}) {
  const trpc = useTRPC();
  const send = useMutation(trpc.review.send.mutationOptions());
  const [error, setError] = useState<string | null>(null);
  if (review.comments.length === 0) return null;
  return (
    <div className={styles.pending} data-testid="review-comments">
      <div className="panel-title-row">
        <span className="panel-title">Pending review · {review.comments.length}</span>
        <button
          type="button"
          className="small primary"
          data-testid="review-send"
          disabled={!sessionId || send.isPending}
          onClick={() => {
            if (!sessionId) return;
            setError(null);
            send.mutate(
              { sessionId, comments: review.comments.map(({ path, line, text }) => ({ path, line, text })) },
              { onSuccess: () => dispatchReview({ type: "sent" }), onError: (failure) => setError(errorMessage(failure)) },
            );
          }}
        >
          Send review
        </button>
      </div>
      {error ? (
        <p className="form-error" role="alert">
          Sending the review failed: {error}
        </p>
      ) : null}
      <ul>
        {review.comments.map((comment) => (
          <li key={comment.id} className={styles.comment} data-testid="review-comment" data-location={`${comment.path}:${comment.line}`}>
            <span className={styles.path}>
              {comment.path}:{comment.line}
            </span>
            <code className={styles.code}>{comment.code}</code>
            <span>{comment.text}</span>
            <button
              type="button"
              className="small"
              onClick={() => dispatchReview({ type: "remove", id: comment.id })}
              aria-label={`Remove the comment on ${comment.path}:${comment.line}`}
            >
              Remove
            </button>
          </li>
        ))}
      </ul>
    </div>
  );
}
