"use client";

import { useEffect, useRef, useState } from "react";
import { errorMessage } from "@/lib/errors";

type Props = { workspaceRoot: string; onTrust(): Promise<void>; onDecline(): void };

/** Asked once per untrusted workspace: project hooks and MCP servers run only after the user trusts it. */
export function TrustDialog({ workspaceRoot, onTrust, onDecline }: Props) {
  const ref = useRef<HTMLDialogElement>(null);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  useEffect(() => {
    const dialog = ref.current;
    if (dialog && !dialog.open) dialog.showModal();
  }, []);
  return (
    <dialog
      ref={ref}
      className="trust-dialog"
      data-testid="trust-dialog"
      aria-labelledby="trust-title"
      onCancel={(event) => {
        event.preventDefault();
        onDecline();
      }}
    >
      <h2 id="trust-title">Do you trust the files in this workspace?</h2>
      <p>
        <code>{workspaceRoot}</code>
      </p>
      <p>
        A workspace can configure <strong>hooks</strong> (shell commands in <code>.claude/settings.json</code> that run around every tool call) and{" "}
        <strong>MCP servers</strong> (programs listed in <code>.mcp.json</code> that Cairn starts). They run on this machine with your permissions.
      </p>
      <p>Trust it only if you know where its files come from. Until you do, Cairn runs neither; the agent and the editor still work.</p>
      {error ? (
        <p className="form-error" role="alert">
          {error}
        </p>
      ) : null}
      <div className="dialog-actions">
        <button type="button" data-testid="trust-decline" onClick={onDecline} disabled={busy}>
          Not now
        </button>
        <button
          type="button"
          className="primary"
          data-testid="trust-accept"
          disabled={busy}
          onClick={async () => {
            setBusy(true);
            try {
              await onTrust();
            } catch (failure) {
              setError(`Could not trust the workspace: ${errorMessage(failure)}`);
              setBusy(false);
            }
          }}
        >
          Trust this workspace
        </button>
      </div>
    </dialog>
  );
}
