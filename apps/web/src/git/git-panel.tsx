"use client";

import { useMutation, useQuery } from "@tanstack/react-query";
import { useEffect, useState } from "react";
import { errorMessage } from "@/lib/errors";
import { useTRPC } from "@/trpc/client";
import type { RouterOutputs } from "@/trpc/types";
import styles from "./git-panel.module.css";

type GitFile = Extract<RouterOutputs["git"]["status"], { repository: true }>["files"][number];

/**
 * The git repository in the sidebar: branch, staged and unstaged files, commit (with a drafted message), branches, push.
 * For a worktree session it is that worktree's (the server answers with the workspace's for any other session).
 */
export function GitPanel({ changeTick, sessionId }: { changeTick: number; sessionId: string | null }) {
  const trpc = useTRPC();
  const [open, setOpen] = useState(true);
  const [message, setMessage] = useState("");
  const [newBranch, setNewBranch] = useState("");
  const [error, setError] = useState<string | null>(null);
  const [notice, setNotice] = useState<string | null>(null);
  const session = sessionId ? { sessionId } : {};
  const status = useQuery(trpc.git.status.queryOptions(sessionId ? { sessionId } : undefined));
  const repository = status.data?.repository === true;
  const branches = useQuery({ ...trpc.git.branches.queryOptions(sessionId ? { sessionId } : undefined), enabled: repository });
  const { refetch } = status;
  const refetchBranches = branches.refetch;
  // biome-ignore lint/correctness/useExhaustiveDependencies: changeTick is the trigger (a workspace file changed), not a value the effect reads
  useEffect(() => {
    const timer = setTimeout(() => void refetch(), 400);
    return () => clearTimeout(timer);
  }, [changeTick, refetch]);

  const run = async (work: Promise<unknown>, done?: string) => {
    setError(null);
    setNotice(null);
    try {
      await work;
      if (done) setNotice(done);
      return true;
    } catch (failure) {
      setError(errorMessage(failure));
      return false;
    } finally {
      await refetch();
      if (repository) await refetchBranches();
    }
  };
  const init = useMutation(trpc.git.init.mutationOptions());
  const stage = useMutation(trpc.git.stage.mutationOptions());
  const unstage = useMutation(trpc.git.unstage.mutationOptions());
  const commit = useMutation(trpc.git.commit.mutationOptions());
  const draft = useMutation(trpc.git.draftMessage.mutationOptions());
  const createBranch = useMutation(trpc.git.createBranch.mutationOptions());
  const switchBranch = useMutation(trpc.git.switchBranch.mutationOptions());
  const push = useMutation(trpc.git.push.mutationOptions());

  const data = status.data;
  const staged = data?.repository ? data.files.filter((file) => file.staged !== null) : [];
  const unstaged = data?.repository ? data.files.filter((file) => file.unstaged !== null) : [];

  return (
    <section className={styles.panel} data-testid="git-panel" aria-label="Git">
      <div className="panel-title-row">
        <button type="button" className="panel-title as-button" aria-expanded={open} onClick={() => setOpen(!open)}>
          {open ? "▾" : "▸"} Git
        </button>
        {data?.repository ? (
          <span className={styles.branch} data-testid="git-branch-name" title={data.upstream ? `tracking ${data.upstream}` : "no upstream"}>
            {data.branch ?? "detached HEAD"}
            {data.ahead > 0 ? ` ↑${data.ahead}` : ""}
            {data.behind > 0 ? ` ↓${data.behind}` : ""}
          </span>
        ) : null}
      </div>
      {open ? (
        <div className={styles.body}>
          {error ? (
            <p className="form-error" role="alert" data-testid="git-error">
              {error}
            </p>
          ) : null}
          {notice ? (
            <p className="muted" role="status" data-testid="git-notice">
              {notice}
            </p>
          ) : null}
          {status.isError ? <p className="form-error">Could not read the repository: {status.error.message}</p> : null}
          {data && !data.repository ? (
            <div data-testid="git-not-repository">
              <p className="muted">This workspace is not a git repository.</p>
              <button
                type="button"
                className="small"
                data-testid="git-init"
                onClick={() => void run(init.mutateAsync(), "Initialised an empty repository (branch main).")}
              >
                git init
              </button>
            </div>
          ) : null}
          {data?.repository ? (
            <>
              <div className={styles.row}>
                <select
                  aria-label="Switch branch"
                  data-testid="git-branch"
                  value={data.branch ?? ""}
                  onChange={(event) => void run(switchBranch.mutateAsync({ name: event.target.value, ...session }), `Switched to ${event.target.value}.`)}
                >
                  {data.branch === null ? <option value="">detached HEAD</option> : null}
                  {(branches.data ?? (data.branch ? [{ name: data.branch, current: true }] : [])).map((branch) => (
                    <option key={branch.name} value={branch.name}>
                      {branch.name}
                    </option>
                  ))}
                </select>
              </div>
              <form
                className={styles.row}
                onSubmit={(event) => {
                  event.preventDefault();
                  void run(createBranch.mutateAsync({ name: newBranch, ...session }), `Created and switched to ${newBranch.trim()}.`).then(
                    (ok) => ok && setNewBranch(""),
                  );
                }}
              >
                <input
                  aria-label="New branch name"
                  placeholder="new-branch"
                  data-testid="git-branch-new"
                  value={newBranch}
                  onChange={(event) => setNewBranch(event.target.value)}
                />
                <button type="submit" className="small" data-testid="git-branch-create" disabled={newBranch.trim() === ""}>
                  Create
                </button>
              </form>
              <FileList
                title="Staged"
                testId="git-staged"
                files={staged}
                side="staged"
                action="Unstage"
                onAction={(path) => void run(unstage.mutateAsync({ paths: [path], ...session }))}
              />
              <FileList
                title="Changes"
                testId="git-unstaged"
                files={unstaged}
                side="unstaged"
                action="Stage"
                onAction={(path) => void run(stage.mutateAsync({ paths: [path], ...session }))}
              />
              {unstaged.length > 0 ? (
                <button
                  type="button"
                  className="small"
                  data-testid="git-stage-all"
                  onClick={() => void run(stage.mutateAsync({ paths: unstaged.map((file) => file.path), ...session }))}
                >
                  Stage all
                </button>
              ) : null}
              <textarea
                className={styles.message}
                aria-label="Commit message"
                placeholder="Commit message"
                data-testid="git-commit-message"
                rows={3}
                value={message}
                onChange={(event) => setMessage(event.target.value)}
              />
              <div className={styles.row}>
                <button
                  type="button"
                  className="small"
                  data-testid="git-draft"
                  disabled={draft.isPending || staged.length === 0}
                  title="Ask the model for a message that fits the staged changes"
                  onClick={() =>
                    void run(
                      draft.mutateAsync(sessionId ? { sessionId } : undefined).then((result) => setMessage(result.message)),
                      undefined,
                    )
                  }
                >
                  {draft.isPending ? "Drafting…" : "Draft message"}
                </button>
                <button
                  type="button"
                  className="small primary"
                  data-testid="git-commit"
                  disabled={commit.isPending}
                  onClick={() =>
                    void run(
                      commit.mutateAsync({ message, ...session }).then((result) => {
                        setMessage("");
                        return result;
                      }),
                      "Committed.",
                    )
                  }
                >
                  Commit
                </button>
                {data.remotes.length > 0 ? (
                  <button
                    type="button"
                    className="small"
                    data-testid="git-push"
                    disabled={push.isPending}
                    onClick={() => void run(push.mutateAsync(sessionId ? { sessionId } : undefined), "Pushed.")}
                  >
                    {push.isPending ? "Pushing…" : "Push"}
                  </button>
                ) : null}
              </div>
            </>
          ) : null}
        </div>
      ) : null}
    </section>
  );
}

function FileList({
  title,
  testId,
  files,
  side,
  action,
  onAction,
}: {
  title: string;
  testId: string;
  files: GitFile[];
  side: "staged" | "unstaged";
  action: string;
  onAction(path: string): void;
}) {
  return (
    <div data-testid={testId}>
      <div className="muted">
        {title} · {files.length}
      </div>
      <ul className={styles.files}>
        {files.map((file) => (
          <li key={file.path} className={styles.file} data-testid="git-file" data-path={file.path} data-state={file[side] ?? ""}>
            <span className={styles.fileName} title={file.path}>
              {file.path}
            </span>
            <span className="muted">{file[side]}</span>
            <button type="button" className="small" data-testid={action === "Stage" ? "git-stage" : "git-unstage"} onClick={() => onAction(file.path)}>
              {action}
            </button>
          </li>
        ))}
      </ul>
    </div>
  );
}
