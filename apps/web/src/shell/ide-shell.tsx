"use client";

import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useCallback, useEffect, useReducer, useState } from "react";
import { loadActiveSession, saveActiveSession } from "@/chat/chat-storage";
import { useEditorTabs } from "@/editor/use-editor-tabs";
import { useWorkspaceWatch } from "@/files/use-workspace-watch";
import { useTRPC, useTRPCClient } from "@/trpc/client";
import { DemoBanner } from "./demo-banner";
import { SignOutEverywhere } from "./sign-out-everywhere";
import { TrustDialog } from "./trust-dialog";
import { ChatPanel } from "../chat/chat-panel";
import { EditorArea } from "../editor/editor-area";
import { FileTree } from "../files/file-tree";
import { McpPanel } from "../mcp/mcp-panel";
import { MemoryPanel } from "../memory/memory-panel";
import { TerminalPanel } from "../terminal/terminal-panel";
import { ChangesPanel } from "../review/changes-panel";
import { GitPanel } from "../git/git-panel";
import { emptyReview, pendingReviewReducer } from "../review/pending-review";

const TRUST_ASKED_KEY = "cairn:trust-asked";
const SESSION_PARAM = "session";
const SESSION_ID = /^[A-Za-z0-9_-]{1,128}$/;

/**
 * `/?session=<id>` (a copy made from a share link, a link from elsewhere) opens that session; the parameter is
 * removed from the address bar so a reload keeps following this tab's own choice.
 */
function takeLinkedSession(): string | null {
  const url = new URL(window.location.href);
  const linked = url.searchParams.get(SESSION_PARAM);
  if (linked === null) return null;
  url.searchParams.delete(SESSION_PARAM);
  window.history.replaceState(window.history.state, "", `${url.pathname}${url.search}${url.hash}`);
  return SESSION_ID.test(linked) ? linked : null;
}

/** The IDE: explorer | editor + terminal | agent chat. */
export function IdeShell() {
  const trpc = useTRPC();
  const client = useTRPCClient();
  const queryClient = useQueryClient();
  const meta = useQuery(trpc.meta.info.queryOptions());
  const trust = useMutation(trpc.meta.trust.mutationOptions());
  const editor = useEditorTabs();
  const [sessionId, setSessionId] = useState<string | null>(null);
  const [trustAsked, setTrustAsked] = useState(true);
  const [changesOpen, setChangesOpen] = useState(false);
  const [changeTick, setChangeTick] = useState(0);
  const [review, dispatchReview] = useReducer(pendingReviewReducer, emptyReview);
  useEffect(() => dispatchReview({ type: "session", sessionId }), [sessionId]);

  // Client-only state is read after hydration, so the server-rendered shell matches (STACK.md P19).
  useEffect(() => {
    const linked = takeLinkedSession();
    if (linked) saveActiveSession(window.sessionStorage, linked);
    setSessionId(linked ?? loadActiveSession(window.sessionStorage));
    setTrustAsked(window.sessionStorage.getItem(TRUST_ASKED_KEY) === "1");
  }, []);

  const changeSession = useCallback((next: string | null) => {
    saveActiveSession(window.sessionStorage, next);
    setSessionId(next);
  }, []);

  // A worktree session's files are not in the watched workspace: its panels refresh when a run ends.
  const bumpChanges = useCallback(() => setChangeTick((tick) => tick + 1), []);
  const { onDiskChange } = editor;
  const onWorkspaceChange = useCallback(
    (change: Parameters<typeof onDiskChange>[0]) => {
      onDiskChange(change);
      setChangeTick((tick) => tick + 1);
    },
    [onDiskChange],
  );
  useWorkspaceWatch(meta.isSuccess, onWorkspaceChange);

  const ops = {
    create: async (path: string, kind: "file" | "directory") => {
      await client.workspace.create.mutate({ path, kind });
      await queryClient.invalidateQueries({ queryKey: trpc.workspace.tree.pathKey() });
    },
    rename: async (from: string, to: string) => {
      await client.workspace.rename.mutate({ from, to });
      editor.dispatch({ type: "renamed", from, to });
      await queryClient.invalidateQueries({ queryKey: trpc.workspace.tree.pathKey() });
    },
    remove: async (path: string) => {
      await client.workspace.delete.mutate({ path });
      for (const tab of editor.state.tabs) {
        if (tab.path === path || tab.path.startsWith(`${path}/`)) editor.dispatch({ type: "closed", path: tab.path });
      }
      await queryClient.invalidateQueries({ queryKey: trpc.workspace.tree.pathKey() });
    },
  };

  if (meta.isPending) return <div className="splash">Starting Cairn…</div>;
  if (meta.isError) {
    return (
      <div className="splash error" role="alert">
        <p>Cannot reach the Cairn server: {meta.error.message}</p>
        <p className="muted">If this browser is not signed in (or was signed out), open the address the server printed (it includes the token).</p>
        <button type="button" onClick={() => void meta.refetch()}>
          Retry
        </button>
      </div>
    );
  }
  const info = meta.data;
  const showTrust = !info.trusted && !trustAsked;
  const dismissTrust = () => {
    window.sessionStorage.setItem(TRUST_ASKED_KEY, "1");
    setTrustAsked(true);
  };

  return (
    <div className="ide" data-testid="ide">
      {info.demo ? <DemoBanner /> : null}
      {!info.sandbox.available ? (
        <div className="notice-bar warning" role="status" data-testid="sandbox-warning">
          The command sandbox is not available{info.sandbox.reason ? `: ${info.sandbox.reason}` : ""}. Bash commands are refused unless the administrator turns
          the sandbox off.
        </div>
      ) : null}
      <div className="ide-columns">
        <aside className="sidebar">
          <FileTree root={info.workspaceRoot} activePath={editor.state.active} onOpen={(path) => void editor.open(path)} {...ops} />
          <GitPanel changeTick={changeTick} sessionId={sessionId} />
          <McpPanel />
          <MemoryPanel sessionId={sessionId} />
          <footer className="sidebar-footer muted">
            <span className="sidebar-footer-text" title={info.workspaceRoot}>
              Cairn {info.version} · {info.trusted ? "trusted" : "untrusted"} workspace
            </span>
            <SignOutEverywhere />
          </footer>
        </aside>
        <main className="center">
          <div className="center-bar">
            <button type="button" className="small" data-testid="changes-toggle" aria-pressed={changesOpen} onClick={() => setChangesOpen(!changesOpen)}>
              {changesOpen ? "Back to the editor" : "Changes"}
              {review.comments.length > 0 ? ` · ${review.comments.length} comment${review.comments.length === 1 ? "" : "s"}` : ""}
            </button>
          </div>
          {changesOpen ? (
            <ChangesPanel sessionId={sessionId} changeTick={changeTick} review={review} dispatchReview={dispatchReview} onClose={() => setChangesOpen(false)} />
          ) : (
            <EditorArea
              root={info.workspaceRoot}
              state={editor.state}
              dispatch={editor.dispatch}
              save={(path, content) => void editor.save(path, content)}
              notice={editor.notice}
              dismissNotice={editor.dismissNotice}
            />
          )}
          <TerminalPanel />
        </main>
        <ChatPanel
          sessionId={sessionId}
          defaultModel={info.model}
          onSessionChange={changeSession}
          onOpenFile={(path) => void editor.open(path)}
          onRunSettled={bumpChanges}
        />
      </div>
      {showTrust ? (
        <TrustDialog
          workspaceRoot={info.workspaceRoot}
          onDecline={dismissTrust}
          onTrust={async () => {
            await trust.mutateAsync();
            dismissTrust();
            await queryClient.invalidateQueries({ queryKey: trpc.meta.info.queryKey() });
          }}
        />
      ) : null}
    </div>
  );
}
