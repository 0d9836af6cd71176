import { spawn } from "node:child_process";
import type { HookRunner, HookRunRequest, HookRunResult } from "../hooks/port.ts";

export type NodeHookRunnerOptions = {
  /**
   * Turns the hook command into the command actually run, e.g. the worker's sandbox wrapping it
   * in bubblewrap (`SandboxManager.wrapWithSandbox`). The result is still run with `sh -c`.
   */
  wrapCommand?: (command: string) => Promise<string>;
  /** The environment hooks inherit before the request's own variables; defaults to this process's. */
  baseEnv?: Readonly<Record<string, string | undefined>>;
  /** After SIGTERM, how long to wait before SIGKILL. */
  killGraceMs?: number;
  /** Output beyond this many bytes per stream is dropped. */
  maxOutputBytes?: number;
};

const DEFAULT_MAX_OUTPUT_BYTES = 1024 * 1024;

function killGroup(pid: number | undefined, signal: NodeJS.Signals): void {
  if (pid === undefined) return;
  try {
    process.kill(-pid, signal);
  } catch {
    // The group is already gone.
  }
}

/**
 * Runs each hook as `sh -c <command>` in its own process group with the workspace as cwd and the
 * JSON input on stdin. On timeout or abort the whole group gets SIGTERM, then SIGKILL.
 */
export function createNodeHookRunner(options: NodeHookRunnerOptions = {}): HookRunner {
  const killGraceMs = options.killGraceMs ?? 2_000;
  const maxOutputBytes = options.maxOutputBytes ?? DEFAULT_MAX_OUTPUT_BYTES;
  return {
    async run(request: HookRunRequest): Promise<HookRunResult> {
      const startedAt = performance.now();
      const elapsed = () => Math.round(performance.now() - startedAt);
      if (request.signal.aborted) return { exitCode: null, stdout: "", stderr: "", timedOut: false, aborted: true, durationMs: 0 };
      let command = request.command;
      try {
        if (options.wrapCommand) command = await options.wrapCommand(request.command);
      } catch (error) {
        return {
          exitCode: null,
          stdout: "",
          stderr: "",
          timedOut: false,
          aborted: false,
          durationMs: elapsed(),
          spawnError: `sandbox wrap failed: ${(error as Error).message}`,
        };
      }
      const env: Record<string, string> = {};
      for (const [key, value] of Object.entries(options.baseEnv ?? process.env)) if (value !== undefined) env[key] = value;
      Object.assign(env, request.env ?? {});

      return new Promise<HookRunResult>((resolve) => {
        const child = spawn("sh", ["-c", command], { cwd: request.cwd, env, detached: true, stdio: ["pipe", "pipe", "pipe"] });
        const stdout: Buffer[] = [];
        const stderr: Buffer[] = [];
        const sizes = { stdout: 0, stderr: 0 };
        let timedOut = false;
        let aborted = false;
        let spawnError: string | undefined;
        let graceTimer: ReturnType<typeof setTimeout> | undefined;

        const collect = (target: Buffer[], key: "stdout" | "stderr") => (chunk: Buffer) => {
          if (sizes[key] >= maxOutputBytes) return;
          const room = maxOutputBytes - sizes[key];
          const kept = chunk.length > room ? chunk.subarray(0, room) : chunk;
          sizes[key] += kept.length;
          target.push(kept);
        };
        child.stdout.on("data", collect(stdout, "stdout"));
        child.stderr.on("data", collect(stderr, "stderr"));

        const stop = () => {
          killGroup(child.pid, "SIGTERM");
          graceTimer = setTimeout(() => killGroup(child.pid, "SIGKILL"), killGraceMs);
        };
        const timeout = setTimeout(() => {
          timedOut = true;
          stop();
        }, request.timeoutMs);
        const onAbort = () => {
          aborted = true;
          stop();
        };
        request.signal.addEventListener("abort", onAbort, { once: true });

        child.on("error", (error) => {
          spawnError = error.message;
        });
        // A background process the hook started may keep the pipes open after `sh` exits: stop
        // reading shortly after the exit instead of waiting for it.
        let drainTimer: ReturnType<typeof setTimeout> | undefined;
        child.on("exit", () => {
          drainTimer = setTimeout(() => {
            child.stdout.destroy();
            child.stderr.destroy();
          }, 250);
        });
        child.on("close", (code) => {
          clearTimeout(timeout);
          if (graceTimer) clearTimeout(graceTimer);
          if (drainTimer) clearTimeout(drainTimer);
          request.signal.removeEventListener("abort", onAbort);
          // Leftover background children of the hook die with it.
          if (timedOut || aborted) killGroup(child.pid, "SIGKILL");
          resolve({
            exitCode: timedOut || aborted ? null : code,
            stdout: Buffer.concat(stdout).toString("utf8"),
            stderr: Buffer.concat(stderr).toString("utf8"),
            timedOut,
            aborted,
            durationMs: elapsed(),
            ...(spawnError ? { spawnError } : {}),
          });
        });

        // A hook that ignores stdin closes it early: EPIPE is not an error here.
        child.stdin.on("error", () => undefined);
        child.stdin.end(request.stdin);
      });
    },
  };
}
