import { isAbsolute, normalize, sep } from "node:path";
import { readWorkerEnv, type WorkerEnv } from "../env.ts";
import { createGitRunner, GitError, type GitRunnerOptions, type RunGit } from "./git-runner.ts";
import { parseStatus, type GitStatus } from "./git-status.ts";

export type GitRepositoryStatus = ({ repository: true; remotes: string[] } & GitStatus) | { repository: false };
export type GitCommitResult = { commit: string; summary: string };
export type GitBranch = { name: string; current: boolean };

/** The largest staged diff handed to the model for a commit message. */
const MAX_DRAFT_DIFF_CHARS = 40_000;
/** Used only when the user has configured no git identity for the server's account. */
const FALLBACK_IDENTITY = ["-c", "user.name=Cairn user", "-c", "user.email=cairn@localhost"];

/**
 * The workspace's own git repository, through the git binary: status, stage, unstage, commit,
 * branches, push, init. Paths are workspace-relative and must stay inside it; git never looks for a
 * repository above the workspace.
 */
export function createGitRepository(options: GitRunnerOptions) {
  const git: RunGit = createGitRunner(options);

  const isRepository = async (): Promise<boolean> => {
    const result = await git(["rev-parse", "--show-prefix"], { ok: [0, 128] });
    // Inside a repository but below its top: the repository is not the workspace's own; treat as none.
    return result.exitCode === 0 && result.stdout.trim() === "";
  };
  const requireRepository = async (): Promise<void> => {
    if (!(await isRepository()))
      throw new GitError("not_a_repository", "This workspace is not a git repository. Run git init (the Git panel offers it) to start one.");
  };
  const checkedPaths = (paths: readonly string[]): string[] => {
    if (paths.length === 0) throw new GitError("outside_workspace", "Name at least one file");
    return paths.map((path) => {
      const normalized = normalize(path);
      if (path === "" || isAbsolute(path) || normalized === ".." || normalized.startsWith(`..${sep}`)) {
        throw new GitError("outside_workspace", `${path} is not a path inside the workspace`);
      }
      return normalized;
    });
  };
  const hasIdentity = async (): Promise<boolean> => {
    const [name, email] = await Promise.all([git(["config", "user.name"], { ok: [0, 1] }), git(["config", "user.email"], { ok: [0, 1] })]);
    return name.stdout.trim() !== "" && email.stdout.trim() !== "";
  };

  const status = async (): Promise<GitRepositoryStatus> => {
    if (!(await isRepository())) return { repository: false };
    const [porcelain, remotes] = await Promise.all([
      git(["--no-optional-locks", "status", "--porcelain=v2", "--branch", "-z", "--untracked-files=all"]),
      git(["remote"]),
    ]);
    return { repository: true, remotes: remotes.stdout.split("\n").filter(Boolean), ...parseStatus(porcelain.stdout) };
  };

  return {
    status,

    async init(): Promise<void> {
      if (await isRepository()) return;
      await git(["init", "--quiet", "--initial-branch=main"]);
    },

    async stage(paths: readonly string[]): Promise<void> {
      await requireRepository();
      await git(["add", "--all", "--", ...checkedPaths(paths)]);
    },

    async unstage(paths: readonly string[]): Promise<void> {
      await requireRepository();
      const checked = checkedPaths(paths);
      const head = await git(["rev-parse", "--verify", "--quiet", "HEAD"], { ok: [0, 1] });
      // Before the first commit there is no HEAD to reset to: drop the files from the index instead.
      if (head.exitCode !== 0) await git(["rm", "--cached", "--quiet", "-r", "--", ...checked]);
      else await git(["reset", "--quiet", "HEAD", "--", ...checked]);
    },

    async commit(message: string): Promise<GitCommitResult> {
      const text = message.trim();
      if (text === "") throw new GitError("empty_commit_message", "Write a commit message first: git refuses an empty one.");
      await requireRepository();
      const staged = await git(["diff", "--cached", "--quiet"], { ok: [0, 1] });
      if (staged.exitCode === 0) throw new GitError("git_failed", "Nothing is staged: stage the files to commit first.");
      const identity = (await hasIdentity()) ? [] : FALLBACK_IDENTITY;
      await git([...identity, "commit", "--quiet", "--file=-"], { input: `${text}\n` });
      const head = await git(["log", "-1", "--format=%H%x09%s"]);
      const [commit = "", ...summary] = head.stdout.trim().split("\t");
      return { commit, summary: summary.join("\t") };
    },

    /** The staged diff, cut to a size a model request can carry. */
    async stagedDiff(): Promise<{ diff: string; truncated: boolean }> {
      await requireRepository();
      const result = await git(["diff", "--cached", "--no-ext-diff", "--stat", "--patch"]);
      const truncated = result.stdout.length > MAX_DRAFT_DIFF_CHARS;
      return { diff: truncated ? result.stdout.slice(0, MAX_DRAFT_DIFF_CHARS) : result.stdout, truncated };
    },

    async branches(): Promise<GitBranch[]> {
      await requireRepository();
      const result = await git(["for-each-ref", "--format=%(HEAD)%09%(refname:short)", "refs/heads/"]);
      return result.stdout
        .split("\n")
        .filter(Boolean)
        .map((line) => {
          const [head = "", name = ""] = line.split("\t");
          return { name, current: head === "*" };
        });
    },

    /** Creates `name` from the current commit and switches to it. */
    async createBranch(name: string): Promise<void> {
      await requireRepository();
      await git(["switch", "--create", await validBranchName(git, name)]);
    },

    async switchBranch(name: string): Promise<void> {
      await requireRepository();
      await git(["switch", await validBranchName(git, name)]);
    },

    /** `git log --oneline -n <limit>`: the newest commits of HEAD, "" outside a repository or before the first commit. */
    async recentCommits(limit: number): Promise<string> {
      if (!(await isRepository())) return "";
      const result = await git(["--no-optional-locks", "log", "--oneline", "-n", String(limit)], { ok: [0, 128] });
      return result.exitCode === 0 ? result.stdout.trim() : "";
    },

    /** Pushes the current branch to its upstream, or to the only remote (setting it as upstream). */
    async push(): Promise<{ output: string }> {
      await requireRepository();
      const current = await status();
      if (!current.repository || current.remotes.length === 0) throw new GitError("no_remote", "This repository has no remote to push to (git remote add …).");
      if (current.branch === null) throw new GitError("git_failed", "HEAD is detached: switch to a branch to push it.");
      const remote = current.remotes.includes("origin") ? "origin" : current.remotes[0]!;
      const args = current.upstream ? ["push", "--porcelain"] : ["push", "--porcelain", "--set-upstream", remote, current.branch];
      const result = await git(args, { push: true });
      return { output: result.stdout.trim() };
    },
  };
}

export type GitRepository = ReturnType<typeof createGitRepository>;

/** A branch name git accepts (`git check-ref-format --branch`), refused with git's own rule when not. */
async function validBranchName(git: RunGit, name: string): Promise<string> {
  const trimmed = name.trim();
  if (trimmed === "" || trimmed.startsWith("-")) throw new GitError("invalid_branch_name", `"${name}" is not a valid branch name`);
  const checked = await git(["check-ref-format", "--branch", trimmed], { ok: [0, 1, 128] });
  if (checked.exitCode !== 0)
    throw new GitError(
      "invalid_branch_name",
      `"${trimmed}" is not a valid branch name: git refuses it (no spaces, "..", "~", "^", ":", "?", "*", "[", or a trailing ".lock" or "/").`,
    );
  return trimmed;
}

/** The workspace's repository with the server's git (PATH, HOME for identity and credential helpers, SSH agent for push). */
export function createWorkspaceGit(root: string, workerEnv: WorkerEnv = readWorkerEnv()): GitRepository {
  return createGitRepository({
    root,
    path: workerEnv.path,
    home: workerEnv.home,
    ...(workerEnv.sshAuthSock ? { pushEnv: { SSH_AUTH_SOCK: workerEnv.sshAuthSock } } : {}),
  });
}
