"use client";

import dynamic from "next/dynamic";
import { useEffect, useState } from "react";

// xterm touches the DOM when imported: browser only, after first paint (STACK.md P6).
const XtermView = dynamic(() => import("./xterm-view"), { ssr: false, loading: () => <div className="muted pad">Starting terminal…</div> });

const OPEN_KEY = "cairn:terminal-open";

/**
 * The bottom panel: a shell in the workspace, started the first time the panel is opened (not on every page
 * load). Hiding keeps the shell running; "New shell" replaces it. Whether it is open survives a reload.
 */
export function TerminalPanel() {
  const [open, setOpen] = useState(false);
  const [started, setStarted] = useState(false);
  const [generation, setGeneration] = useState(0);
  useEffect(() => {
    if (window.sessionStorage.getItem(OPEN_KEY) === "1") {
      setOpen(true);
      setStarted(true);
    }
  }, []);
  const toggle = () => {
    const next = !open;
    setOpen(next);
    if (next) setStarted(true);
    window.sessionStorage.setItem(OPEN_KEY, next ? "1" : "0");
  };
  return (
    <section className={`terminal-panel${open ? "" : " collapsed"}`} data-testid="terminal">
      <div className="panel-title-row">
        <button type="button" className="panel-title as-button" data-testid="terminal-toggle" aria-expanded={open} onClick={toggle}>
          {open ? "▾" : "▸"} Terminal
        </button>
        {open ? (
          <button type="button" className="small" data-testid="terminal-new" onClick={() => setGeneration((value) => value + 1)}>
            New shell
          </button>
        ) : null}
      </div>
      <div className="terminal-body" hidden={!open}>
        {started ? <XtermView generation={generation} /> : null}
      </div>
    </section>
  );
}
