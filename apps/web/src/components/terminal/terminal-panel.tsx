"use client";

import dynamic from "next/dynamic";
import { useState } from "react";

// xterm touches the DOM when imported: browser only, after first paint (STACK.md P6).
const XtermView = dynamic(() => import("./xterm-view"), { ssr: false, loading: () => <div className="muted pad">Starting terminal…</div> });

/** The bottom panel: a shell in the workspace. "New" starts a fresh shell; hiding keeps the shell running. */
export function TerminalPanel() {
  const [open, setOpen] = useState(true);
  const [generation, setGeneration] = useState(0);
  return (
    <section className={`terminal-panel${open ? "" : " collapsed"}`} data-testid="terminal">
      <div className="panel-title-row">
        <button type="button" className="panel-title as-button" aria-expanded={open} onClick={() => setOpen(!open)}>
          {open ? "▾" : "▸"} Terminal
        </button>
        {open ? (
          <button type="button" className="small" data-testid="terminal-new" onClick={() => setGeneration((value) => value + 1)}>
            New shell
          </button>
        ) : null}
      </div>
      <div className="terminal-body" hidden={!open}>
        <XtermView generation={generation} />
      </div>
    </section>
  );
}
