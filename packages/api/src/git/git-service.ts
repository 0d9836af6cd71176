import type { ModelClient } from "@cairn/core";
import { GitError, type GitRepository } from "@cairn/worker";
import { ApiError, type ApiErrorCode } from "../router/errors.ts";
import type { GitBranchView, GitStatusView } from "./git-types.ts";

const codeOf: Record<GitError["code"], ApiErrorCode> = {
  git_missing: "git_failed",
  git_failed: "git_failed",
  not_a_repository: "not_a_repository",
  invalid_branch_name: "invalid_branch_name",
  empty_commit_message: "empty_commit_message",
  no_remote: "no_remote",
  outside_workspace: "outside_workspace",
  merge_conflict: "merge_conflict",
};

/** A worker git failure as the API reports it (the same message, the API's code); anything else as it is. */
export function asApiError(error: unknown): unknown {
  return error instanceof GitError ? new ApiError(codeOf[error.code], error.message, { cause: error }) : error;
}

const DRAFT_SYSTEM =
  "You write git commit messages. Answer with the commit message only: a summary line in the imperative mood of at most 72 characters, then, when the change needs it, a blank line and a short body wrapped at 72 characters. No code fences, no preamble.";

type GitServiceOptions = {
  repository: GitRepository;
  model: { client: ModelClient; name: () => string };
};

/** The Git panel: the workspace repository through the worker's git, and commit messages drafted by the model. */
export class GitService {
  private readonly options: GitServiceOptions;

  constructor(options: GitServiceOptions) {
    this.options = options;
  }

  status(): Promise<GitStatusView> {
    return this.mapped(() => this.options.repository.status());
  }

  init(): Promise<void> {
    return this.mapped(() => this.options.repository.init());
  }

  stage(paths: readonly string[]): Promise<void> {
    return this.mapped(() => this.options.repository.stage(paths));
  }

  unstage(paths: readonly string[]): Promise<void> {
    return this.mapped(() => this.options.repository.unstage(paths));
  }

  commit(message: string): Promise<{ commit: string; summary: string }> {
    return this.mapped(() => this.options.repository.commit(message));
  }

  branches(): Promise<GitBranchView[]> {
    return this.mapped(() => this.options.repository.branches());
  }

  createBranch(name: string): Promise<void> {
    return this.mapped(() => this.options.repository.createBranch(name));
  }

  switchBranch(name: string): Promise<void> {
    return this.mapped(() => this.options.repository.switchBranch(name));
  }

  push(): Promise<{ output: string }> {
    return this.mapped(() => this.options.repository.push());
  }

  /** Asks the model for a commit message that fits the staged diff. */
  async draftMessage(signal: AbortSignal): Promise<{ message: string }> {
    const { diff, truncated } = await this.mapped(() => this.options.repository.stagedDiff());
    if (diff.trim() === "") throw new ApiError("git_failed", "Nothing is staged: stage the files first, then draft a message for them.");
    const request = {
      model: this.options.model.name(),
      max_tokens: 400,
      system: [{ type: "text" as const, text: DRAFT_SYSTEM }],
      messages: [{ role: "user" as const, content: `Write the commit message for this staged diff${truncated ? " (cut short: it is long)" : ""}:\n\n${diff}` }],
    };
    let text = "";
    for await (const part of this.options.model.client.stream(request, { signal })) {
      if (part.type === "text-delta") text += part.text;
      else if (part.type === "block-start" && part.block.type === "text") text += part.block.text;
    }
    const message = text.replace(/^```[a-z]*\n?|```\s*$/g, "").trim();
    if (message === "") throw new ApiError("git_failed", "The model answered with no commit message; try again or write one.");
    return { message };
  }

  private async mapped<T>(work: () => Promise<T>): Promise<T> {
    try {
      return await work();
    } catch (error) {
      throw asApiError(error);
    }
  }
}
