"use client";

import dynamic from "next/dynamic";
import { useState } from "react";
import "./share.css";

// The dialog (and its queries) load when the owner first asks for it, not with the IDE.
const ShareDialog = dynamic(() => import("./share-dialog").then((module) => module.ShareDialog), { ssr: false });

/** The session bar's Share entry: opens the dialog that makes a read-only link to this session. */
export function ShareButton({ sessionId }: { sessionId: string | null }) {
  const [open, setOpen] = useState(false);
  return (
    <>
      <button
        type="button"
        className="small"
        data-testid="share-button"
        disabled={!sessionId}
        title={sessionId ? "Make a read-only link to this session" : "Start a session to share it"}
        onClick={() => setOpen(true)}
      >
        Share
      </button>
      {open && sessionId ? <ShareDialog sessionId={sessionId} onClose={() => setOpen(false)} /> : null}
    </>
  );
}
