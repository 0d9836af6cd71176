import { realpath } from "node:fs/promises";
import { join } from "node:path";
import { readWorkerEnv, type WorkerEnv } from "../env.ts";
import { createGitRunner, GitError, type GitRunnerOptions, type RunGit } from "./git-runner.ts";

/** A session's worktree name: it becomes a directory and the branch `cairn/<name>`. */
const WORKTREE_NAME = /^[A-Za-z0-9][A-Za-z0-9_-]{0,63}$/;
const FALLBACK_IDENTITY = ["-c", "user.name=Cairn user", "-c", "user.email=cairn@localhost"];

export type GitWorktree = { name: string; path: string; branch: string; base: string };

type WorktreeOptions = GitRunnerOptions & {
  /** Cairn's own directory for this workspace's worktrees (outside the workspace, so its tree stays clean). */
  worktreesDirectory: string;
};

/**
 * Worktrees for parallel sessions: each gets a branch `cairn/<name>` from the workspace's current
 * branch and a directory under Cairn's own folder; it is merged back into that branch (a conflict is
 * reported and the merge undone, so nothing changes) or discarded (directory removed, branch deleted).
 */
export function createGitWorktrees(options: WorktreeOptions) {
  const git: RunGit = createGitRunner(options);
  const inWorktree = (path: string): RunGit => createGitRunner({ ...options, root: path });
  const checkedName = (name: string): string => {
    if (!WORKTREE_NAME.test(name)) throw new GitError("invalid_branch_name", `"${name}" cannot name a worktree: use letters, digits, "-" and "_" (at most 64)`);
    return name;
  };
  const worktreeOf = (name: string, base: string): GitWorktree => ({
    name,
    path: join(options.worktreesDirectory, checkedName(name)),
    branch: `cairn/${name}`,
    base,
  });
  const requireRepository = async (): Promise<void> => {
    const result = await git(["rev-parse", "--show-prefix"], { ok: [0, 128] });
    if (result.exitCode !== 0 || result.stdout.trim() !== "")
      throw new GitError("not_a_repository", "Worktree sessions need a git repository: this workspace is not one. Run git init (the Git panel offers it).");
  };

  return {
    /** The repository directory the worktrees' `.git` files point into (the workspace's `.git`), resolved. */
    async repositoryDirectory(): Promise<string> {
      await requireRepository();
      const common = await git(["rev-parse", "--path-format=absolute", "--git-common-dir"]);
      return realpath(common.stdout.trim());
    },

    /** Creates the worktree and its branch from the current branch's last commit. */
    async add(name: string): Promise<GitWorktree> {
      await requireRepository();
      const head = await git(["symbolic-ref", "--quiet", "--short", "HEAD"], { ok: [0, 1, 128] });
      const base = head.stdout.trim();
      if (head.exitCode !== 0 || base === "") throw new GitError("git_failed", "HEAD is detached: switch the workspace to a branch first.");
      const commit = await git(["rev-parse", "--verify", "--quiet", "HEAD"], { ok: [0, 1] });
      if (commit.exitCode !== 0) throw new GitError("git_failed", `${base} has no commit yet: commit something first, then start a worktree session.`);
      const worktree = worktreeOf(name, base);
      await git(["worktree", "add", "--quiet", "-b", worktree.branch, worktree.path, "HEAD"]);
      return worktree;
    },

    /**
     * Commits what the session left uncommitted in its worktree, then merges its branch into `base`
     * in the workspace. On a conflict the merge is undone and the conflicting files are named.
     */
    async merge(name: string, base: string): Promise<{ commit: string }> {
      await requireRepository();
      const worktree = worktreeOf(name, base);
      const current = await git(["symbolic-ref", "--quiet", "--short", "HEAD"], { ok: [0, 1, 128] });
      if (current.stdout.trim() !== base)
        throw new GitError("git_failed", `The workspace is not on ${base}: switch it back to ${base} to merge ${worktree.branch}.`);
      const session = inWorktree(worktree.path);
      await session(["add", "--all"]);
      const staged = await session(["diff", "--cached", "--quiet"], { ok: [0, 1] });
      if (staged.exitCode === 1) await session([...FALLBACK_IDENTITY, "commit", "--quiet", "--file=-"], { input: `Work of the Cairn session ${name}\n` });
      const merged = await git([...FALLBACK_IDENTITY, "merge", "--no-ff", "--no-edit", worktree.branch], { ok: [0, 1, 128] });
      if (merged.exitCode !== 0) {
        const conflicted = await git(["diff", "--name-only", "--diff-filter=U"]);
        const files = conflicted.stdout.split("\n").filter(Boolean);
        const inProgress = await git(["rev-parse", "--verify", "--quiet", "MERGE_HEAD"], { ok: [0, 1] });
        if (inProgress.exitCode === 0) await git(["merge", "--abort"]);
        throw new GitError(
          "merge_conflict",
          files.length > 0
            ? `Merging ${worktree.branch} into ${base} conflicts in ${files.join(", ")}; the merge was undone and nothing changed. Resolve it in the worktree session (or by hand) and merge again.`
            : `git could not merge ${worktree.branch} into ${base}: ${(merged.stderr || merged.stdout).trim()}`,
        );
      }
      const head = await git(["rev-parse", "HEAD"]);
      return { commit: head.stdout.trim() };
    },

    /** Removes the worktree (uncommitted work in it included) and deletes its branch. */
    async discard(name: string): Promise<void> {
      await requireRepository();
      const worktree = worktreeOf(name, "");
      await git(["worktree", "remove", "--force", worktree.path], { ok: [0, 128] });
      await git(["worktree", "prune"]);
      await git(["branch", "-D", worktree.branch], { ok: [0, 1] });
    },
  };
}

export type GitWorktrees = ReturnType<typeof createGitWorktrees>;

/** The workspace's worktrees with the server's git (PATH, and HOME for the user's identity). */
export function createWorkspaceWorktrees(root: string, worktreesDirectory: string, workerEnv: WorkerEnv = readWorkerEnv()): GitWorktrees {
  return createGitWorktrees({ root, worktreesDirectory, path: workerEnv.path, home: workerEnv.home });
}
