// The Git panel's wire types, free of Node imports (the web app's typecheck reaches them through the router).

export type GitFileState = "modified" | "added" | "deleted" | "renamed" | "copied" | "type-changed" | "unmerged";

export type GitStatusFileView = { path: string; from?: string; staged: GitFileState | null; unstaged: GitFileState | "untracked" | null };

export type GitStatusView =
  | { repository: false }
  | {
      repository: true;
      remotes: string[];
      branch: string | null;
      upstream: string | null;
      ahead: number;
      behind: number;
      unborn: boolean;
      files: GitStatusFileView[];
    };

export type GitBranchView = { name: string; current: boolean };
