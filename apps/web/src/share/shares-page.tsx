"use client";

import { useQuery } from "@tanstack/react-query";
import { errorMessage } from "@/lib/errors";
import { useTRPC } from "@/trpc/client";
import { ShareRow, type ShareSummary } from "./share-row";
import "./share.css";

/** "My shares": every link made on this server, with what it shows, when it ends, how often it was opened. */
export function SharesPage() {
  const trpc = useTRPC();
  const shares = useQuery(trpc.share.list.queryOptions());
  return (
    <div className="share-page" data-testid="shares-page">
      <div className="share-page-inner">
        <header className="share-header">
          <div>
            <h1>My shares</h1>
            <p className="muted small-text">
              Read-only links to sessions. Rotating a link makes a new address and stops the old one; revoking stops it for good.
            </p>
          </div>
          <a className="button-link" href="/">
            Back to the IDE
          </a>
        </header>
        {shares.isPending ? <p className="muted">Loading shares…</p> : null}
        {shares.isError ? (
          <p className="form-error" role="alert">
            Could not load the shares: {errorMessage(shares.error)}
          </p>
        ) : null}
        {shares.data?.length === 0 ? (
          <p className="muted" data-testid="shares-empty">
            No links yet. Use Share in the IDE's session bar to make one.
          </p>
        ) : null}
        {shares.data && shares.data.length > 0 ? (
          <table className="shares-table">
            <thead>
              <tr>
                <th>Session</th>
                <th>Mode</th>
                <th>Created</th>
                <th>Expires</th>
                <th>Last opened</th>
                <th>Views</th>
                <th>Status</th>
                <th>
                  <span className="sr-only">Actions</span>
                </th>
              </tr>
            </thead>
            <tbody>
              {shares.data.map((share: ShareSummary) => (
                <ShareRow key={share.shareId} share={share} onChanged={() => void shares.refetch()} />
              ))}
            </tbody>
          </table>
        ) : null}
      </div>
    </div>
  );
}
