import { spawn } from "node:child_process";
import { access, constants } from "node:fs/promises";
import { delimiter, join } from "node:path";
import { abortError } from "../errors.ts";

/** The `rg` executable on the given PATH, if any. */
export async function findRipgrep(pathVariable: string): Promise<string | undefined> {
  for (const directory of pathVariable.split(delimiter)) {
    if (directory === "") continue;
    const candidate = join(directory, "rg");
    try {
      await access(candidate, constants.X_OK);
      return candidate;
    } catch {
      // keep looking
    }
  }
  return undefined;
}

/** Flags every ripgrep run shares: same ignore rules as the JavaScript walker, no user config. */
export const ripgrepBaseArgs = ["--no-config", "--hidden", "--no-require-git", "--no-ignore-global", "--color", "never"] as const;

export type RipgrepExit = { exitCode: number | null; stderr: string };

/**
 * Spawns ripgrep (never through a shell) and hands stdout over chunk by chunk. Killed on abort.
 * Resolves with the exit code; ripgrep exits 1 when nothing matched and 2 on errors.
 */
export function runRipgrep(
  ripgrep: string,
  args: readonly string[],
  options: { cwd: string; signal?: AbortSignal; onStdout: (chunk: Buffer) => void },
): Promise<RipgrepExit> {
  const { signal } = options;
  if (signal?.aborted) return Promise.reject(abortError(signal));
  return new Promise((resolve, reject) => {
    const child = spawn(ripgrep, [...args], {
      cwd: options.cwd,
      env: { PATH: "/usr/bin:/bin", LANG: "C.UTF-8" },
      stdio: ["ignore", "pipe", "pipe"],
    });
    const stderrChunks: Buffer[] = [];
    let stderrBytes = 0;
    const onAbort = () => child.kill("SIGKILL");
    signal?.addEventListener("abort", onAbort, { once: true });
    child.stdout.on("data", options.onStdout);
    child.stderr.on("data", (chunk: Buffer) => {
      if (stderrBytes < 64 * 1024) stderrChunks.push(chunk);
      stderrBytes += chunk.length;
    });
    child.once("error", (error) => {
      signal?.removeEventListener("abort", onAbort);
      reject(error);
    });
    child.once("close", (exitCode) => {
      signal?.removeEventListener("abort", onAbort);
      if (signal?.aborted) reject(abortError(signal));
      else resolve({ exitCode, stderr: Buffer.concat(stderrChunks).toString("utf8") });
    });
  });
}
