import { spawn } from "node:child_process";

export type CheckpointErrorCode = "git-missing" | "git-failed" | "unknown-checkpoint" | "aborted";

export class CheckpointError extends Error {
  readonly code: CheckpointErrorCode;
  constructor(code: CheckpointErrorCode, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = "CheckpointError";
    this.code = code;
  }
}

export interface GitInvocation {
  gitBinary: string;
  gitDir: string;
  workTree: string;
  /** PATH (and nothing else) is passed through from here; git's own configuration is isolated. */
  pathEnv: string | undefined;
  signal?: AbortSignal;
}

export interface GitResult {
  stdout: string;
  /** stdout as bytes (file contents). */
  bytes: Uint8Array;
  exitCode: number;
}

/**
 * Runs `git --git-dir=<shadow> --work-tree=<workspace> …` with the user's and the system's git
 * configuration shut out (no hooks, no signing, no fsmonitor daemons from ~/.gitconfig), so a
 * checkpoint behaves the same on every machine. Non-zero exits throw unless listed in `okExitCodes`.
 */
export function runGit(invocation: GitInvocation, args: string[], okExitCodes: number[] = [0]): Promise<GitResult> {
  return new Promise<GitResult>((resolvePromise, reject) => {
    if (invocation.signal?.aborted) {
      reject(new CheckpointError("aborted", "Checkpoint aborted"));
      return;
    }
    const child = spawn(invocation.gitBinary, [`--git-dir=${invocation.gitDir}`, `--work-tree=${invocation.workTree}`, ...args], {
      cwd: invocation.workTree,
      env: {
        PATH: invocation.pathEnv ?? "/usr/local/bin:/usr/bin:/bin",
        GIT_CONFIG_NOSYSTEM: "1",
        GIT_CONFIG_GLOBAL: "/dev/null",
        GIT_TERMINAL_PROMPT: "0",
        GIT_AUTHOR_NAME: "Cairn",
        GIT_AUTHOR_EMAIL: "checkpoints@cairn.invalid",
        GIT_COMMITTER_NAME: "Cairn",
        GIT_COMMITTER_EMAIL: "checkpoints@cairn.invalid",
        LC_ALL: "C",
      },
      stdio: ["ignore", "pipe", "pipe"],
      ...(invocation.signal === undefined ? {} : { signal: invocation.signal }),
    });
    const stdout: Buffer[] = [];
    const stderr: Buffer[] = [];
    child.stdout.on("data", (chunk: Buffer) => stdout.push(chunk));
    child.stderr.on("data", (chunk: Buffer) => stderr.push(chunk));
    child.on("error", (error: NodeJS.ErrnoException) => {
      if (error.name === "AbortError") reject(new CheckpointError("aborted", "Checkpoint aborted", { cause: error }));
      else if (error.code === "ENOENT") reject(new CheckpointError("git-missing", `git not found (${invocation.gitBinary})`, { cause: error }));
      else reject(new CheckpointError("git-failed", `git ${args[0]} failed to start`, { cause: error }));
    });
    child.on("close", (exitCode) => {
      const code = exitCode ?? -1;
      const bytes = Buffer.concat(stdout);
      if (okExitCodes.includes(code)) {
        resolvePromise({ stdout: bytes.toString("utf8"), bytes, exitCode: code });
        return;
      }
      const message = Buffer.concat(stderr).toString("utf8").trim();
      reject(new CheckpointError("git-failed", `git ${args.join(" ")} exited with ${code}: ${message}`));
    });
  });
}
