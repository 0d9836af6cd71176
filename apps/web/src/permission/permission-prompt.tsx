"use client";

import { useQuery } from "@tanstack/react-query";
import dynamic from "next/dynamic";
import type { PermissionRequestView } from "@/chat/chat-types";
import { describeReason } from "@/chat/describe";
import { ActionButton } from "@/lib/action-button";
import { cairnErrorCode, errorMessage } from "@/lib/errors";
import { DenyForm } from "./deny-form";
import { PlanReviewCard } from "./plan-review-card";
import { filePathOf, proposedChange, type ProposedChange } from "./proposed-change";
import { useTRPC } from "@/trpc/client";
import type { PermissionAnswer } from "@/trpc/types";
import { usePermissionAnswer } from "./use-permission-answer";

const MonacoDiff = dynamic(() => import("../editor/monaco-diff"), { ssr: false, loading: () => <div className="editor-loading">Loading diff…</div> });

type Props = {
  request: PermissionRequestView;
  pendingCount: number;
  onRespond(answer: PermissionAnswer): Promise<void>;
};

/** Asks the user about one tool call, showing exactly what it would do; a plan gets its review card. */
export function PermissionPrompt({ request, pendingCount, onRespond }: Props) {
  const plan = request.toolName === "ExitPlanMode" ? proposedChange(request.toolName, request.input, undefined) : null;
  if (plan?.kind === "plan") return <PlanReviewCard requestId={request.requestId} plan={plan.plan} pendingCount={pendingCount} onRespond={onRespond} />;
  return <ToolPermissionPrompt request={request} pendingCount={pendingCount} onRespond={onRespond} />;
}

function ToolPermissionPrompt({ request, pendingCount, onRespond }: Props) {
  const trpc = useTRPC();
  const { busy, error, answer } = usePermissionAnswer(onRespond);
  const path = filePathOf(request.toolName, request.input);
  // The file as it is now, not as an editor tab or cache remembers it: the diff must show the real change.
  const current = useQuery({
    ...trpc.workspace.read.queryOptions({ path: path ?? "" }),
    enabled: path !== undefined,
    staleTime: 0,
    gcTime: 0,
    retry: false,
  });
  const missing = current.isError && cairnErrorCode(current.error) === "file_not_found";
  const loading = path !== undefined && current.isPending;
  const change: ProposedChange | null = loading
    ? null
    : proposedChange(request.toolName, request.input, current.data && !current.data.binary ? current.data.content : undefined);
  const rule = request.suggestions[0];

  return (
    <section
      className="permission-prompt"
      data-testid="permission-prompt"
      data-tool-name={request.toolName}
      data-request-id={request.requestId}
      aria-label={`Permission for ${request.toolName}`}
    >
      <header>
        <strong>
          Allow {request.toolName}
          {path ? ` on ${path}` : ""}?
        </strong>
        {pendingCount > 1 ? <span className="muted"> (1 of {pendingCount} waiting)</span> : null}
        <p className="muted small-text">Asked because: {describeReason(request.reason)}</p>
        {request.message ? <p className="permission-message">{request.message}</p> : null}
      </header>
      <div className="permission-body">
        {loading ? <p className="muted">Reading the file…</p> : null}
        {current.isError && !missing ? (
          <p className="form-error">
            Could not read {path}: {errorMessage(current.error)}
          </p>
        ) : null}
        {change?.kind === "file" ? (
          <>
            {change.note ? <p className="permission-note">{change.note}</p> : null}
            <div className="permission-diff" data-testid="permission-diff">
              <MonacoDiff path={change.path} original={change.original} modified={change.modified} />
            </div>
          </>
        ) : null}
        {change?.kind === "command" ? (
          <div className="permission-command">
            {change.description ? <p className="muted">{change.description}</p> : null}
            <pre data-testid="permission-command">{change.command}</pre>
          </div>
        ) : null}
        {change?.kind === "input" ? <pre data-testid="permission-input">{change.json}</pre> : null}
      </div>
      <div className="permission-actions">
        <ActionButton className="primary" testId="permission-allow-once" disabled={busy} onAction={() => answer({ behavior: "allow", scope: "once" })}>
          Allow once
        </ActionButton>
        <ActionButton testId="permission-allow-session" disabled={busy} onAction={() => answer({ behavior: "allow", scope: "session" })}>
          Allow for this session
        </ActionButton>
        <ActionButton
          testId="permission-allow-always"
          disabled={busy || !rule}
          title={rule ? `Saves the rule ${rule} in the workspace settings, so this is not asked again` : "No rule was suggested for this request"}
          onAction={() => answer({ behavior: "allow", scope: "always" })}
        >
          Always allow <code>{rule ?? "(no rule suggested)"}</code>
        </ActionButton>
      </div>
      <DenyForm
        id="permission-feedback"
        feedbackTestId="permission-feedback"
        submitTestId="permission-deny"
        label="Tell the agent what to do instead"
        placeholder="Deny, and tell the agent what to do instead (optional)"
        rows={2}
        submitLabel="Deny"
        submitClassName="danger"
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
