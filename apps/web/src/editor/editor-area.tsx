"use client";

import dynamic from "next/dynamic";
import { useEffect } from "react";
import { isDirty, type EditorTab, type TabsAction, type TabsState } from "./tabs-state";
import type { EditorNotice } from "./use-editor-tabs";
import { basename, relativeTo } from "../files/paths";

// Monaco is megabytes: it loads after first paint, only in the browser (STACK.md P6).
const MonacoPane = dynamic(() => import("./monaco-pane"), { ssr: false, loading: () => <div className="editor-loading">Loading editor…</div> });

type Props = {
  root: string;
  state: TabsState;
  dispatch(action: TabsAction): void;
  /** `content` is the editor's own text when Monaco saves; without it the tab's last rendered text is saved. */
  save(path: string, content?: string): void;
  notice: EditorNotice | null;
  dismissNotice(): void;
};

export function EditorArea({ root, state, dispatch, save, notice, dismissNotice }: Props) {
  const active = state.tabs.find((tab) => tab.path === state.active) ?? null;

  // Ctrl/Cmd+S outside Monaco (tab bar, tree) saves the active tab instead of opening the browser's dialog.
  useEffect(() => {
    const onKey = (event: KeyboardEvent) => {
      if ((event.ctrlKey || event.metaKey) && event.key.toLowerCase() === "s") {
        event.preventDefault();
        // Inside Monaco its own Ctrl/Cmd+S command saves.
        if (event.target instanceof Element && event.target.closest(".monaco-editor")) return;
        if (state.active) save(state.active);
      }
    };
    window.addEventListener("keydown", onKey);
    return () => window.removeEventListener("keydown", onKey);
  }, [save, state.active]);

  return (
    <section className="editor-area" data-testid="editor" data-active-path={active?.path ?? ""}>
      <div className="tab-bar" role="tablist" aria-label="Open files">
        {state.tabs.map((tab) => (
          <TabButton key={tab.path} tab={tab} root={root} active={tab.path === state.active} dispatch={dispatch} />
        ))}
      </div>
      {notice && (!notice.path || notice.path === active?.path) ? (
        <div className={`notice-bar ${notice.level}`} role="alert" data-testid="editor-notice">
          <span>{notice.message}</span>
          <button type="button" className="small" onClick={dismissNotice}>
            Dismiss
          </button>
        </div>
      ) : null}
      {active?.conflict ? <ConflictBar tab={active} root={root} dispatch={dispatch} /> : null}
      <div className="editor-body">
        {active ? (
          active.binary ? (
            <div className="editor-empty">This file is not text; it cannot be edited here.</div>
          ) : (
            <MonacoPane
              path={active.path}
              value={active.content}
              revision={active.revision}
              readOnly={false}
              onChange={(content) => dispatch({ type: "edited", path: active.path, content })}
              onSave={(content) => save(active.path, content)}
            />
          )
        ) : (
          <div className="editor-empty">Open a file from the explorer.</div>
        )}
      </div>
    </section>
  );
}

function TabButton({ tab, root, active, dispatch }: { tab: EditorTab; root: string; active: boolean; dispatch(action: TabsAction): void }) {
  const dirty = isDirty(tab);
  return (
    <div className={`tab${active ? " active" : ""}`} data-testid="editor-tab" data-path={tab.path} data-dirty={dirty} title={relativeTo(root, tab.path)}>
      <button type="button" role="tab" aria-selected={active} className="tab-label" onClick={() => dispatch({ type: "activated", path: tab.path })}>
        {basename(tab.path)}
        {dirty ? (
          <span className="dirty-marker" data-testid="dirty-marker" aria-label="unsaved changes">
            {" "}
            ●
          </span>
        ) : null}
        {tab.conflict ? (
          <span className="conflict-marker" aria-label="conflict">
            {" "}
            ⚠
          </span>
        ) : null}
      </button>
      <button
        type="button"
        className="tab-close"
        aria-label={`Close ${basename(tab.path)}`}
        onClick={() => {
          if (dirty && !window.confirm(`${basename(tab.path)} has unsaved changes. Close it anyway?`)) return;
          dispatch({ type: "closed", path: tab.path });
        }}
      >
        ×
      </button>
    </div>
  );
}

function ConflictBar({ tab, root, dispatch }: { tab: EditorTab; root: string; dispatch(action: TabsAction): void }) {
  const name = relativeTo(root, tab.path);
  const message =
    tab.conflict?.kind === "deleted-on-disk"
      ? `${name} was deleted on disk. Keep your version to write it back when you save, or close the tab.`
      : `${name} changed on disk (the agent or another program edited it) while you have unsaved edits.`;
  return (
    <div className="notice-bar warning" role="alert" data-testid="editor-conflict">
      <span>{message}</span>
      <span className="toolbar">
        {tab.conflict?.kind === "changed-on-disk" ? (
          <button
            type="button"
            className="small"
            data-testid="editor-conflict-reload"
            onClick={() => dispatch({ type: "resolved", path: tab.path, choice: "reload" })}
          >
            Reload (discard mine)
          </button>
        ) : null}
        <button
          type="button"
          className="small"
          data-testid="editor-conflict-keep"
          onClick={() => dispatch({ type: "resolved", path: tab.path, choice: "keep-mine" })}
        >
          Keep mine
        </button>
      </span>
    </div>
  );
}
