"use client";

import { useState } from "react";
import { errorMessage } from "@/lib/errors";
import { createSignedInClient, isNotSignedIn } from "@/trpc/share-client";

type Outcome = { kind: "idle" } | { kind: "busy" } | { kind: "not-signed-in" } | { kind: "failed"; message: string };

/**
 * Copies the shared conversation into a new session of the viewer's own and opens it in the IDE. Only a
 * browser signed in to this same Cairn server may (the main router and its cookie); others are told so.
 */
export function ContinueAsCopy({ token, messageUuid }: { token: string; messageUuid?: string | null | undefined }) {
  const [client] = useState(createSignedInClient);
  const [outcome, setOutcome] = useState<Outcome>({ kind: "idle" });
  const fork = async () => {
    setOutcome({ kind: "busy" });
    try {
      const { sessionId } = await client.share.fork.mutate({ token, ...(messageUuid ? { messageUuid } : {}) });
      window.location.assign(`/?session=${encodeURIComponent(sessionId)}`);
    } catch (error) {
      setOutcome(isNotSignedIn(error) ? { kind: "not-signed-in" } : { kind: "failed", message: errorMessage(error) });
    }
  };
  return (
    <div className="share-fork">
      <button type="button" className="small primary" data-testid="share-fork" disabled={outcome.kind === "busy"} onClick={() => void fork()}>
        Continue as copy
      </button>
      {outcome.kind === "not-signed-in" ? (
        <p className="form-error" role="alert" data-testid="share-fork-signin">
          To continue as a copy you must be signed in to this Cairn server: open the address its owner&apos;s <code>cairn serve</code> printed (it carries{" "}
          <code>?token=…</code>) in this browser, then come back to this link.
        </p>
      ) : null}
      {outcome.kind === "failed" ? (
        <p className="form-error" role="alert" data-testid="share-fork-error">
          Could not make a copy: {outcome.message}
        </p>
      ) : null}
    </div>
  );
}
