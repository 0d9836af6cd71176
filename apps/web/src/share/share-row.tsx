"use client";

import { useMutation } from "@tanstack/react-query";
import { useState } from "react";
import { errorMessage } from "@/lib/errors";
import { absoluteShareUrl, formatWhen } from "./share-format";
import { useTRPC } from "@/trpc/client";
import type { RouterOutputs } from "@/trpc/types";
import { CopyField } from "./copy-field";

export type ShareSummary = RouterOutputs["share"]["list"][number];

type Props = { share: ShareSummary; onChanged(): void };
type Confirming = "rotate" | "revoke" | null;

/** One link: its facts, and Rotate (new address, shown once) and Revoke, each asked twice. */
export function ShareRow({ share, onChanged }: Props) {
  const { status } = share;
  const trpc = useTRPC();
  const [confirming, setConfirming] = useState<Confirming>(null);
  const rotate = useMutation(trpc.share.rotate.mutationOptions({ onSuccess: onChanged }));
  const revoke = useMutation(trpc.share.revoke.mutationOptions({ onSuccess: onChanged }));
  const failure = rotate.error ?? revoke.error;
  const active = status === "active";
  return (
    <>
      <tr data-testid="share-row" data-share-id={share.shareId} data-status={status}>
        <td className="title">
          <div>{share.title}</div>
          <div className="muted">{share.sessionId}</div>
          {failure ? (
            <p className="form-error" role="alert">
              {errorMessage(failure)}
            </p>
          ) : null}
        </td>
        <td>{share.mode}</td>
        <td>{formatWhen(share.createdAt)}</td>
        <td>{formatWhen(share.expiresAt)}</td>
        <td>{formatWhen(share.lastAccessAt, "not yet")}</td>
        <td data-testid="share-views">{share.viewCount}</td>
        <td>
          <span className={`badge status-${status}`} data-testid="share-status">
            {status}
          </span>
        </td>
        <td>
          {confirming === null ? (
            <span className="toolbar">
              <button type="button" className="small" data-testid="share-rotate" disabled={!active} onClick={() => setConfirming("rotate")}>
                Rotate
              </button>
              <button type="button" className="small danger" data-testid="share-revoke" disabled={status === "revoked"} onClick={() => setConfirming("revoke")}>
                Revoke
              </button>
            </span>
          ) : (
            <span className="toolbar" role="group" aria-label={confirming === "rotate" ? "Confirm rotating" : "Confirm revoking"}>
              <span>{confirming === "rotate" ? "Stop the old address and make a new one?" : "Stop this link for good?"}</span>
              <button
                type="button"
                className={`small ${confirming === "revoke" ? "danger" : "primary"}`}
                data-testid={`share-${confirming}-confirm`}
                disabled={rotate.isPending || revoke.isPending}
                onClick={() => {
                  const done = { onSettled: () => setConfirming(null) };
                  if (confirming === "rotate") rotate.mutate({ shareId: share.shareId }, done);
                  else revoke.mutate({ shareId: share.shareId }, done);
                }}
              >
                {confirming === "rotate" ? "Rotate" : "Revoke"}
              </button>
              <button type="button" className="small" onClick={() => setConfirming(null)}>
                Cancel
              </button>
            </span>
          )}
        </td>
      </tr>
      {rotate.data ? (
        <tr className="share-new-url" data-testid="share-rotated" data-share-id={share.shareId}>
          <td colSpan={8}>
            <CopyField value={absoluteShareUrl(window.location.origin, rotate.data.url)} label="New share link" testId="share-url" />
            <div className="share-once">The new link is shown only once; the old one no longer works.</div>
          </td>
        </tr>
      ) : null}
    </>
  );
}
