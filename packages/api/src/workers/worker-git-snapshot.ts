import type { GitRepository } from "@cairn/worker";
import { cutGitStatus, type GitSnapshot } from "../runtime/git-snapshot.ts";

type StatusFile = Extract<Awaited<ReturnType<GitRepository["status"]>>, { repository: true }>["files"][number];

const letters: Record<string, string> = {
  modified: "M",
  added: "A",
  deleted: "D",
  renamed: "R",
  copied: "C",
  "type-changed": "T",
  unmerged: "U",
};

/** One line of `git status --short` for a file of the worker's status. */
function shortLine(file: StatusFile): string {
  if (file.unstaged === "untracked") return `?? ${file.path}`;
  const code = `${file.staged === null ? " " : (letters[file.staged] ?? "?")}${file.unstaged === null ? " " : (letters[file.unstaged] ?? "?")}`;
  return `${code} ${file.from === undefined ? file.path : `${file.from} -> ${file.path}`}`;
}

/**
 * The git snapshot of a new conversation (branch, main branch, short status, last 5 commits) for a workspace on a
 * worker host: asked over the worker protocol, since git must run where the files are. Undefined outside a repository
 * or when the worker cannot be reached (the conversation starts without it, as where git is missing).
 */
export async function takeWorkerGitSnapshot(git: GitRepository): Promise<GitSnapshot | undefined> {
  try {
    const status = await git.status();
    if (!status.repository) return undefined;
    const [branches, recentCommits] = await Promise.all([git.branches(), git.recentCommits(5)]);
    const names = new Set(branches.map((branch) => branch.name));
    return {
      branch: status.branch,
      mainBranch: names.has("main") ? "main" : names.has("master") ? "master" : null,
      status: cutGitStatus(status.files.map(shortLine).join("\n")),
      recentCommits,
    };
  } catch {
    return undefined;
  }
}
