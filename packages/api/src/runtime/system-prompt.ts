import type { GitSnapshot } from "./git-snapshot.ts";

export const CAIRN_SYSTEM_PROMPT = `You are Cairn, an AI coding agent working in the user's workspace through tools.
Use the tools to read, search, edit and run code. Read a file before you edit it. Prefer Edit for small changes and Write for new files.
File paths given to tools must be absolute paths inside the workspace. Use Glob and Grep to find things instead of guessing.
Run independent read-only tool calls in parallel. Keep answers short and concrete; say what you changed and why.
Never run commands that reach outside the workspace, exfiltrate data, or change system state the user did not ask for.`;

export type EnvironmentInfo = {
  cwd: string;
  platform: string;
  date: string;
  model: string;
  /** The git snapshot taken when the conversation starts; undefined when the workspace is not a repository. */
  git?: GitSnapshot | undefined;
};

/**
 * The system prompt as blocks: the first is the same for every session (the cacheable prefix), the
 * second carries the environment and the git status at the start of the conversation, as Claude
 * Code's system context does. Memory files travel in the first user message instead.
 */
export function buildSystemPrompt(info: EnvironmentInfo): string[] {
  const environment = [
    "<env>",
    `Working directory: ${info.cwd}`,
    `Is directory a git repo: ${info.git ? "Yes" : "No"}`,
    `Platform: ${info.platform}`,
    `Today's date: ${info.date}`,
    `Model: ${info.model}`,
    "</env>",
  ].join("\n");
  return [CAIRN_SYSTEM_PROMPT, info.git ? `${environment}\n\n${renderGitStatus(info.git)}` : environment];
}

function renderGitStatus(git: GitSnapshot): string {
  return [
    "gitStatus: This is the git status at the start of the conversation. Note that this status is a snapshot in time, and will not update during the conversation.",
    `Current branch: ${git.branch ?? "(detached HEAD)"}`,
    "",
    `Main branch (you will usually use this for PRs): ${git.mainBranch ?? "(unknown)"}`,
    "",
    "Status:",
    git.status || "(clean)",
    "",
    "Recent commits:",
    git.recentCommits || "(no commits yet)",
  ].join("\n");
}
