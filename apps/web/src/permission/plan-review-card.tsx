"use client";

import { useState } from "react";
import { MarkdownText } from "@/chat/markdown-lazy";
import { errorMessage } from "@/lib/errors";
import type { PermissionAnswer } from "@/trpc/types";

type Props = {
  requestId: string;
  plan: string;
  pendingCount: number;
  onRespond(answer: PermissionAnswer): Promise<void>;
};

/**
 * The agent's plan (its `ExitPlanMode` call) for review: approve and go on in default mode, approve
 * into acceptEdits, or keep planning with comments that go back to the agent.
 */
export function PlanReviewCard({ requestId, plan, pendingCount, onRespond }: Props) {
  const [comments, setComments] = useState("");
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);

  const answer = async (value: PermissionAnswer) => {
    setBusy(true);
    setError(null);
    try {
      await onRespond(value);
    } catch (failure) {
      setError(errorMessage(failure));
      setBusy(false);
    }
  };

  return (
    <section className="permission-prompt plan-review" data-testid="plan-review" data-request-id={requestId} aria-label="Review the plan">
      <header>
        <strong>The agent has a plan. Approve it to leave plan mode?</strong>
        {pendingCount > 1 ? <span className="muted"> (1 of {pendingCount} waiting)</span> : null}
      </header>
      <div className="permission-plan" data-testid="plan-text">
        <MarkdownText text={plan} />
      </div>
      <div className="permission-actions">
        <button
          type="button"
          className="primary"
          data-testid="plan-approve"
          disabled={busy}
          onClick={() => void answer({ behavior: "allow", scope: "once", mode: "default" })}
        >
          Approve
        </button>
        <button
          type="button"
          data-testid="plan-approve-accept-edits"
          disabled={busy}
          title="Approve, and let the agent edit files without asking"
          onClick={() => void answer({ behavior: "allow", scope: "once", mode: "acceptEdits" })}
        >
          Approve and accept edits
        </button>
      </div>
      <form
        className="permission-deny"
        onSubmit={(event) => {
          event.preventDefault();
          const text = comments.trim();
          void answer(text ? { behavior: "deny", feedback: text } : { behavior: "deny" });
        }}
      >
        <label htmlFor="plan-comments" className="sr-only">
          Comments on the plan
        </label>
        <textarea
          id="plan-comments"
          data-testid="plan-comments"
          rows={3}
          value={comments}
          placeholder="Comments on the plan: what to change, what is missing"
          onChange={(event) => setComments(event.target.value)}
        />
        <button type="submit" data-testid="plan-revise" disabled={busy}>
          Keep planning
        </button>
      </form>
      {error ? (
        <p className="form-error" role="alert">
          {error}
        </p>
      ) : null}
    </section>
  );
}
