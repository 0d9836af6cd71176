"use client";

import { useQueryClient } from "@tanstack/react-query";
import { useEffect, useRef } from "react";
import { useTRPC, useTRPCClient } from "@/trpc/client";
import type { WorkspaceChange } from "@/trpc/types";

/** Refresh delay for the tree after a burst of changes (a build writing many files). */
const TREE_REFRESH_MS = 150;

/**
 * Follows `workspace.watch`: the tree refreshes, and each change goes to `onChange` (open editor tabs).
 * The subscription is not resumable, so after a reconnect everything is refreshed once.
 */
export function useWorkspaceWatch(enabled: boolean, onChange: (change: WorkspaceChange) => void) {
  const trpc = useTRPC();
  const client = useTRPCClient();
  const queryClient = useQueryClient();
  const handler = useRef(onChange);
  useEffect(() => {
    handler.current = onChange;
  }, [onChange]);

  useEffect(() => {
    if (!enabled) return;
    let timer: ReturnType<typeof setTimeout> | undefined;
    const refreshTree = () => {
      timer ??= setTimeout(() => {
        timer = undefined;
        void queryClient.invalidateQueries({ queryKey: trpc.workspace.tree.pathKey() });
      }, TREE_REFRESH_MS);
    };
    let connectedBefore = false;
    const subscription = client.workspace.watch.subscribe(undefined, {
      onStarted: () => {
        if (connectedBefore) refreshTree();
        connectedBefore = true;
      },
      onData: (change) => {
        if (change.type !== "change") refreshTree();
        handler.current(change);
      },
      onError: () => refreshTree(),
    });
    return () => {
      subscription.unsubscribe();
      if (timer) clearTimeout(timer);
    };
  }, [client, enabled, queryClient, trpc]);
}
