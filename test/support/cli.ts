import { spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

export const repoRoot = resolve(dirname(fileURLToPath(import.meta.url)), "..", "..");
export const cairnBin = join(repoRoot, "packages", "cli", "bin", "cairn.js");
/** The local worker process `cairn` starts (its bundle, built by the integration tests' global setup), for servers a test starts itself. */
export const localWorkerScript = join(repoRoot, "packages", "cli", "bin", "worker.js");

// Lines are parsed JSON from the child: loosely typed on purpose, the assertions check their shape.
export type CliRun = { code: number | null; signal: NodeJS.Signals | null; stdout: string; stderr: string; lines: Array<Record<string, any>> };

/**
 * Runs `cairn` as a child process, as a user would, with a clean environment of our choosing: PATH, TMPDIR when the
 * test run has one, and a HOME of its own (an empty temporary folder, removed afterwards, unless `env.HOME` names one), never the machine's
 * ~/.claude or ~/.cairn.
 */
export function runCairn(args: string[], options: { cwd: string; env?: Record<string, string>; stdin?: string; timeoutMs?: number }): Promise<CliRun> {
  return new Promise((resolvePromise, reject) => {
    const ownHome = options.env?.HOME === undefined ? mkdtempSync(join(tmpdir(), "cairn-cli-home-")) : undefined;
    const removeHome = () => {
      if (ownHome !== undefined) rmSync(ownHome, { recursive: true, force: true });
    };
    const child = spawn(process.execPath, [cairnBin, ...args], {
      cwd: options.cwd,
      env: {
        PATH: process.env.PATH ?? "/usr/bin:/bin",
        // The run's temporary folder, so what cairn makes there is counted with the test run's own.
        ...(process.env.TMPDIR !== undefined ? { TMPDIR: process.env.TMPDIR } : {}),
        ...(ownHome !== undefined ? { HOME: ownHome } : {}),
        ...options.env,
      },
      stdio: ["pipe", "pipe", "pipe"],
    });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
    const timer = setTimeout(() => child.kill("SIGKILL"), options.timeoutMs ?? 60_000);
    child.once("error", (error) => {
      removeHome();
      reject(error);
    });
    child.once("close", (code, signal) => {
      clearTimeout(timer);
      removeHome();
      const lines = stdout
        .split("\n")
        .filter((line) => line.startsWith("{"))
        .map((line) => JSON.parse(line) as Record<string, any>);
      resolvePromise({ code, signal, stdout, stderr, lines });
    });
    child.stdin.end(options.stdin ?? "");
  });
}
