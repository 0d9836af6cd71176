"use client";

import { MarkdownText } from "@/chat/markdown-lazy";
import { ActionButton } from "@/lib/action-button";
import type { PermissionAnswer } from "@/trpc/types";
import { DenyForm } from "./deny-form";
import { usePermissionAnswer } from "./use-permission-answer";

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
  const { busy, error, answer } = usePermissionAnswer(onRespond);

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
        <ActionButton className="primary" testId="plan-approve" disabled={busy} onAction={() => answer({ behavior: "allow", scope: "once", mode: "default" })}>
          Approve
        </ActionButton>
        <ActionButton
          testId="plan-approve-accept-edits"
          disabled={busy}
          title="Approve, and let the agent edit files without asking"
          onAction={() => answer({ behavior: "allow", scope: "once", mode: "acceptEdits" })}
        >
          Approve and accept edits
        </ActionButton>
      </div>
      <DenyForm
        id="plan-comments"
        feedbackTestId="plan-comments"
        submitTestId="plan-revise"
        label="Comments on the plan"
        placeholder="Comments on the plan: what to change, what is missing"
        rows={3}
        submitLabel="Keep planning"
        busy={busy}
        answer={answer}
      />
      {error ? (
        <p className="form-error" role="alert">
          {error}
        </p>
      ) : null}
    </section>
  );
}
