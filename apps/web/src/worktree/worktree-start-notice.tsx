"use client";

import { useMutation, useQueryClient } from "@tanstack/react-query";
import { useState } from "react";
import { errorMessage } from "@/lib/errors";
import { useTRPC } from "@/trpc/client";

/**
 * Why a worktree session could not start; outside a git repository it says so and offers `git init`
 * (the repository then needs a first commit, which the Git panel makes).
 */
export function WorktreeStartNotice({ message, notRepository, onDismiss }: { message: string; notRepository: boolean; onDismiss(): void }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const init = useMutation(trpc.git.init.mutationOptions());
  const [done, setDone] = useState<string | null>(null);
  const [error, setError] = useState<string | null>(null);
  const initialise = async () => {
    setError(null);
    try {
      await init.mutateAsync();
      setDone("Initialised an empty repository (branch main). Commit your files in the Git panel, then start the worktree session again.");
    } catch (failure) {
      setError(`git init failed: ${errorMessage(failure)}`);
    } finally {
      await queryClient.invalidateQueries({ queryKey: trpc.git.pathKey() });
    }
  };
  return (
    <div className="notice-bar warning" role="alert" data-testid="worktree-start-error">
      <span>{done ?? (notRepository ? "This workspace is not a git repository: a worktree session needs one." : message)}</span>
      {error ? <span className="form-error">{error}</span> : null}
      <span className="toolbar">
        {notRepository && !done ? (
          <button type="button" className="small" data-testid="worktree-git-init" disabled={init.isPending} onClick={() => void initialise()}>
            git init
          </button>
        ) : null}
        <button type="button" className="small" onClick={onDismiss}>
          Dismiss
        </button>
      </span>
    </div>
  );
}
