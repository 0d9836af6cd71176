"use client";

import { useCallback, useReducer, useRef, useState } from "react";
import { emptyTabs, tabsReducer, type TabsState } from "./tabs-state";
import { useTRPCClient } from "@/trpc/client";
import type { WorkspaceChange } from "@/trpc/types";
import { cairnErrorCode, errorMessage } from "@/lib/errors";

export type EditorNotice = { id: number; level: "info" | "error"; path: string | null; message: string };

/** Open files, saving with conflict detection, and live reload when the file changes on disk. */
export function useEditorTabs() {
  const client = useTRPCClient();
  const [state, dispatch] = useReducer(tabsReducer, undefined, emptyTabs);
  const [notice, setNotice] = useState<EditorNotice | null>(null);
  const latest = useRef<TabsState>(state);
  latest.current = state;
  const noticeIds = useRef(0);

  const say = useCallback((level: EditorNotice["level"], path: string | null, message: string) => {
    setNotice({ id: ++noticeIds.current, level, path, message });
  }, []);

  const readDisk = useCallback(
    async (path: string) => {
      const file = await client.workspace.read.query({ path });
      return { path: file.path, content: file.content, mtimeMs: file.mtimeMs, binary: file.binary };
    },
    [client],
  );

  const open = useCallback(
    async (path: string) => {
      if (latest.current.tabs.some((tab) => tab.path === path)) return dispatch({ type: "activated", path });
      try {
        dispatch({ type: "opened", file: await readDisk(path) });
      } catch (error) {
        say("error", path, `Could not open ${path}: ${errorMessage(error)}`);
      }
    },
    [readDisk, say],
  );

  /** Paths with a save in flight: a second Ctrl+S before the first re-render must not write again. */
  const saving = useRef(new Set<string>());

  const save = useCallback(
    async (path: string, typed?: string) => {
      const tab = latest.current.tabs.find((candidate) => candidate.path === path);
      if (!tab || saving.current.has(path) || tab.binary) return;
      if (tab.conflict) return say("error", path, "Not saved: settle the conflict first (reload, or keep your version).");
      // What Monaco holds when it saves: keys typed just before Ctrl+S may not have been rendered into `tab` yet.
      const content = typed ?? tab.content;
      if (typed !== undefined && typed !== tab.content) dispatch({ type: "edited", path, content: typed });
      saving.current.add(path);
      dispatch({ type: "save-started", path });
      try {
        const written = await client.workspace.write.mutate({ path, content, ...(tab.mtimeMs > 0 ? { expectedMtimeMs: tab.mtimeMs } : {}) });
        dispatch({ type: "saved", path, content, mtimeMs: written.mtimeMs });
        if (notice?.path === path) setNotice(null);
      } catch (error) {
        dispatch({ type: "save-failed", path });
        if (cairnErrorCode(error) === "file_conflict") {
          say("error", path, `Not saved: ${path} changed on disk since you opened it. Reload it, or keep your version and save again.`);
          try {
            dispatch({ type: "disk-changed", file: await readDisk(path) });
          } catch (readError) {
            if (cairnErrorCode(readError) === "file_not_found") dispatch({ type: "disk-deleted", path });
          }
          return;
        }
        say("error", path, `Could not save ${path}: ${errorMessage(error)}`);
      } finally {
        saving.current.delete(path);
      }
    },
    [client, notice?.path, readDisk, say],
  );

  /** A change from `workspace.watch`: refresh an open file, or raise a conflict over unsaved edits. */
  const onDiskChange = useCallback(
    async (change: WorkspaceChange) => {
      const affected = latest.current.tabs.filter((tab) => tab.path === change.path || tab.path.startsWith(`${change.path}/`));
      for (const tab of affected) {
        if (change.type === "delete") {
          dispatch({ type: "disk-deleted", path: tab.path });
          continue;
        }
        if (tab.path !== change.path || (change.mtimeMs !== undefined && change.mtimeMs === tab.mtimeMs)) continue;
        try {
          // With unsaved edits this raises the conflict bar instead of replacing the buffer.
          dispatch({ type: "disk-changed", file: await readDisk(tab.path) });
        } catch (error) {
          if (cairnErrorCode(error) === "file_not_found") dispatch({ type: "disk-deleted", path: tab.path });
        }
      }
    },
    [readDisk],
  );

  return { state, dispatch, open, save, onDiskChange, notice, dismissNotice: () => setNotice(null) };
}
