"use client";

import { useMutation, useQuery, type UseQueryResult } from "@tanstack/react-query";
import { useEffect, useRef, useState } from "react";
import { errorMessage } from "@/lib/errors";
import { absoluteShareUrl, DEFAULT_EXPIRY_DAYS, describeRedactions, EXPIRY_CHOICES, formatWhen } from "./share-format";
import { useTRPC } from "@/trpc/client";
import type { RouterInputs, RouterOutputs } from "@/trpc/types";
import { CopyField } from "./copy-field";
import "./share.css";

type Props = { sessionId: string; onClose(): void };
type ShareMode = RouterInputs["share"]["create"]["mode"];
type SharePreview = RouterOutputs["share"]["preview"];

/**
 * Making a read-only link: choose live or a snapshot and an expiry, read which secrets will be replaced by
 * `[REDACTED:<kind>]`, confirm, and copy the link, which is shown this once (the server keeps only its hash).
 */
export function ShareDialog({ sessionId, onClose }: Props) {
  const trpc = useTRPC();
  const ref = useRef<HTMLDialogElement>(null);
  const [mode, setMode] = useState<ShareMode>("snapshot");
  const [expiryDays, setExpiryDays] = useState<number>(DEFAULT_EXPIRY_DAYS);
  const preview = useQuery({ ...trpc.share.preview.queryOptions({ sessionId, mode }), staleTime: 0, retry: false });
  const create = useMutation(trpc.share.create.mutationOptions());

  useEffect(() => {
    const dialog = ref.current;
    if (dialog && !dialog.open) dialog.showModal();
  }, []);

  const created = create.data;
  return (
    <dialog
      ref={ref}
      className="share-dialog"
      data-testid="share-dialog"
      aria-labelledby="share-dialog-title"
      onCancel={(event) => {
        event.preventDefault();
        onClose();
      }}
    >
      <h2 id="share-dialog-title">Share this session (read-only)</h2>
      {created ? (
        <div data-testid="share-created" data-share-id={created.shareId}>
          <p>Anyone with this link can read the conversation until {formatWhen(created.expiresAt)}. They cannot send prompts or change anything.</p>
          <CopyField value={absoluteShareUrl(window.location.origin, created.url)} label="Share link" testId="share-url" />
          <p className="share-once">This link is shown only once. Copy it now; you can rotate or revoke it later under My shares.</p>
        </div>
      ) : (
        <form
          onSubmit={(event) => {
            event.preventDefault();
            create.mutate({ sessionId, mode, expiresInDays: expiryDays });
          }}
        >
          <fieldset>
            <legend>What viewers see</legend>
            <label>
              <input
                type="radio"
                name="share-mode"
                value="snapshot"
                data-testid="share-mode-snapshot"
                checked={mode === "snapshot"}
                onChange={() => setMode("snapshot")}
              />
              <span>
                Snapshot <span className="muted">— the conversation up to its current message</span>
              </span>
            </label>
            <label>
              <input type="radio" name="share-mode" value="live" data-testid="share-mode-live" checked={mode === "live"} onChange={() => setMode("live")} />
              <span>
                Live <span className="muted">— follows the session as it continues</span>
              </span>
            </label>
          </fieldset>
          <label>
            <span>Expires after</span>
            <select data-testid="share-expiry" value={expiryDays} onChange={(event) => setExpiryDays(Number(event.target.value))}>
              {EXPIRY_CHOICES.map((choice) => (
                <option key={choice.label} value={choice.days}>
                  {choice.label}
                </option>
              ))}
            </select>
          </label>
          <RedactionPreview state={preview} />
          {create.isError ? (
            <p className="form-error" role="alert">
              Could not create the link: {errorMessage(create.error)}
            </p>
          ) : null}
          <div className="dialog-actions">
            <a className="button-link" href="/shares" target="_blank" rel="noreferrer" data-testid="shares-link">
              My shares
            </a>
            <button type="button" onClick={onClose}>
              Cancel
            </button>
            <button type="submit" className="primary" data-testid="share-create" disabled={!preview.isSuccess || create.isPending}>
              {preview.data && preview.data.hits.some((hit) => hit.count > 0) ? "Redact and create link" : "Create link"}
            </button>
          </div>
        </form>
      )}
      {created ? (
        <div className="dialog-actions">
          <a className="button-link" href="/shares" target="_blank" rel="noreferrer" data-testid="shares-link">
            My shares
          </a>
          <button type="button" className="primary" data-testid="share-done" onClick={onClose}>
            Done
          </button>
        </div>
      ) : null}
    </dialog>
  );
}

function RedactionPreview({ state }: { state: UseQueryResult<SharePreview, unknown> }) {
  if (state.isPending)
    return (
      <p className="muted" data-testid="share-preview-loading">
        Looking for secrets to redact…
      </p>
    );
  if (state.isError)
    return (
      <p className="form-error" role="alert">
        Could not check the session for secrets: {errorMessage(state.error)}
      </p>
    );
  const hits = state.data.hits.filter((hit) => hit.count > 0);
  return (
    <div
      className={`share-preview${hits.length === 0 ? " clean" : ""}`}
      data-testid="share-preview"
      data-hit-count={hits.reduce((sum, hit) => sum + hit.count, 0)}
    >
      <div>
        {state.data.messageCount} message{state.data.messageCount === 1 ? "" : "s"} will be shared. {describeRedactions(hits)}
      </div>
      {hits.length > 0 ? (
        <ul>
          {hits.map((hit) => (
            <li key={hit.kind} data-testid="share-redaction" data-kind={hit.kind} data-count={hit.count}>
              <code>[REDACTED:{hit.kind}]</code> × {hit.count}
              {hit.examples.length > 0 ? <span className="muted"> — e.g. {hit.examples.join(", ")}</span> : null}
            </li>
          ))}
        </ul>
      ) : null}
    </div>
  );
}
