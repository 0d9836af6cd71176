import { execFile } from "node:child_process";
import { stat } from "node:fs/promises";
import { dirname, join } from "node:path";

export type GitSnapshot = { branch: string | null; mainBranch: string | null; status: string; recentCommits: string };

/** `git status --short` longer than this is cut, as Claude Code does: the model can run git itself. */
const MAX_STATUS_CHARS = 2_000;

/**
 * The git status at the start of a conversation: branch, main branch, short status, the last 5
 * commits. Undefined when the directory is not a work tree or git is missing. Git runs with the
 * file-system monitor off and without taking optional locks, so a snapshot neither runs a
 * repository-configured program nor blocks the user's own git.
 */
export async function takeGitSnapshot(cwd: string, timeoutMs = 5_000): Promise<GitSnapshot | undefined> {
  const git = (...args: string[]) =>
    new Promise<string | null>((resolve) => {
      execFile(
        "git",
        ["-c", "core.fsmonitor=false", "--no-pager", "--no-optional-locks", ...args],
        { cwd, timeout: timeoutMs, maxBuffer: 4 * 1024 * 1024 },
        (error, stdout) => resolve(error ? null : stdout.trim()),
      );
    });
  // Most directories that are no work tree are told apart without a git process (each spawn forks the server).
  if (!(await mayBeInWorkTree(cwd))) return undefined;
  if ((await git("rev-parse", "--is-inside-work-tree")) !== "true") return undefined;
  const [branch, originHead, hasMain, hasMaster, status, recentCommits] = await Promise.all([
    git("branch", "--show-current"),
    git("symbolic-ref", "--short", "refs/remotes/origin/HEAD"),
    git("rev-parse", "--verify", "--quiet", "refs/heads/main"),
    git("rev-parse", "--verify", "--quiet", "refs/heads/master"),
    git("status", "--short"),
    git("log", "--oneline", "-n", "5"),
  ]);
  const mainBranch = originHead ? originHead.replace(/^origin\//, "") : hasMain ? "main" : hasMaster ? "master" : null;
  return { branch: branch || null, mainBranch, status: cutGitStatus(status ?? ""), recentCommits: recentCommits ?? "" };
}

/** `git status --short` as the system prompt carries it: cut past MAX_STATUS_CHARS. */
export function cutGitStatus(shortStatus: string): string {
  return shortStatus.length > MAX_STATUS_CHARS ? `${shortStatus.slice(0, MAX_STATUS_CHARS)}\n… (cut: run "git status" for the rest)` : shortStatus;
}

/**
 * Whether git could see `cwd` as inside a work tree: a `.git` (directory or file, as in linked worktrees and
 * submodules) in it or a parent, or git told where the repository is through the environment.
 */
async function mayBeInWorkTree(cwd: string, environment: NodeJS.ProcessEnv = process.env): Promise<boolean> {
  if (environment.GIT_DIR !== undefined || environment.GIT_WORK_TREE !== undefined) return true;
  for (let directory = cwd; ; directory = dirname(directory)) {
    if (
      await stat(join(directory, ".git")).then(
        () => true,
        () => false,
      )
    )
      return true;
    if (dirname(directory) === directory) return false;
  }
}

/**
 * Git snapshots of one directory shared by the sessions that start close together: a snapshot taken (or being
 * taken) less than `maxAgeMs` ago is reused. A burst of new sessions (a hundred tabs reopening) then costs one set
 * of git processes instead of one per session; each spawn forks the whole server process.
 */
export function sharedGitSnapshots(
  cwd: string,
  options: { maxAgeMs?: number; now?: () => number; take?: (cwd: string) => Promise<GitSnapshot | undefined> } = {},
): () => Promise<GitSnapshot | undefined> {
  const maxAgeMs = options.maxAgeMs ?? 2_000;
  const now = options.now ?? Date.now;
  const take = options.take ?? takeGitSnapshot;
  let latest: { startedAt: number; snapshot: Promise<GitSnapshot | undefined> } | undefined;
  return () => {
    const startedAt = now();
    if (latest && startedAt - latest.startedAt < maxAgeMs) return latest.snapshot;
    latest = { startedAt, snapshot: take(cwd) };
    return latest.snapshot;
  };
}
