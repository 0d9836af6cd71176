import { spawn } from "node:child_process";
import { dirname } from "node:path";

export type GitErrorCode =
  | "git_missing"
  | "git_failed"
  | "not_a_repository"
  | "invalid_branch_name"
  | "empty_commit_message"
  | "no_remote"
  | "outside_workspace"
  | "merge_conflict";

export class GitError extends Error {
  override readonly name = "GitError";
  readonly code: GitErrorCode;
  constructor(code: GitErrorCode, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.code = code;
  }
}

export type GitRunnerOptions = {
  /** The workspace: git runs here and never looks for a repository above it. */
  root: string;
  gitBinary?: string;
  /** PATH, and HOME for the user's git identity and credential helpers (push). */
  path: string;
  home: string;
  /** Variables only `git push` gets (SSH_AUTH_SOCK), so credentials reach git and nothing else. */
  pushEnv?: Readonly<Record<string, string>>;
};

export type GitOutput = { stdout: string; stderr: string; exitCode: number };

/**
 * Hardening every invocation gets: no repository hooks (they would run outside the sandbox, and the
 * agent can write the workspace), no fsmonitor daemon, no pager, no prompts, no signing prompt, and
 * pathspecs taken literally (a file named `*` is that file).
 */
const SAFE_CONFIG = [
  "-c",
  "core.hooksPath=/dev/null",
  "-c",
  "core.fsmonitor=false",
  "-c",
  "core.quotePath=false",
  "-c",
  "color.ui=false",
  "-c",
  "commit.gpgSign=false",
  "-c",
  "protocol.ext.allow=never",
];

/** Runs the git binary in the workspace with a scrubbed environment; stdin is written when given. */
export function createGitRunner(options: GitRunnerOptions) {
  const baseEnv: Record<string, string> = {
    PATH: options.path,
    HOME: options.home,
    LC_ALL: "C",
    GIT_TERMINAL_PROMPT: "0",
    GIT_CEILING_DIRECTORIES: dirname(options.root),
    GIT_LITERAL_PATHSPECS: "1",
  };
  return function runGit(
    args: readonly string[],
    runOptions: { input?: string; ok?: readonly number[]; push?: boolean; signal?: AbortSignal } = {},
  ): Promise<GitOutput> {
    return new Promise((resolve, reject) => {
      const child = spawn(options.gitBinary ?? "git", [...SAFE_CONFIG, ...args], {
        cwd: options.root,
        env: { ...baseEnv, ...(runOptions.push ? options.pushEnv : {}) },
        stdio: [runOptions.input === undefined ? "ignore" : "pipe", "pipe", "pipe"],
        ...(runOptions.signal ? { signal: runOptions.signal } : {}),
      });
      const stdout: Buffer[] = [];
      const stderr: Buffer[] = [];
      child.stdout?.on("data", (chunk: Buffer) => stdout.push(chunk));
      child.stderr?.on("data", (chunk: Buffer) => stderr.push(chunk));
      child.on("error", (error: NodeJS.ErrnoException) => {
        reject(
          error.code === "ENOENT"
            ? new GitError("git_missing", "git is not installed on the server (apt-get install git)", { cause: error })
            : new GitError("git_failed", `git ${args[0]} did not start`, { cause: error }),
        );
      });
      child.on("close", (code) => {
        const output = { stdout: Buffer.concat(stdout).toString("utf8"), stderr: Buffer.concat(stderr).toString("utf8"), exitCode: code ?? -1 };
        if ((runOptions.ok ?? [0]).includes(output.exitCode)) resolve(output);
        else
          reject(
            new GitError(
              "git_failed",
              `git ${args[0]} failed: ${withoutCredentials(output.stderr.trim() || output.stdout.trim() || `exit ${output.exitCode}`)}`,
            ),
          );
      });
      if (runOptions.input !== undefined && child.stdin) {
        // git may exit (refusing) before it reads its input; that is reported by the exit code.
        child.stdin.on("error", () => undefined);
        child.stdin.end(runOptions.input);
      }
    });
  };
}

export type RunGit = ReturnType<typeof createGitRunner>;

/** `https://user:token@host` in git's messages becomes `https://***@host`. */
export function withoutCredentials(text: string): string {
  return text.replace(/([a-z][a-z0-9+.-]*:\/\/)[^\s/@]+@/gi, "$1***@");
}
