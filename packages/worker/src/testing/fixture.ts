import { randomBytes, randomInt } from "node:crypto";
import { mkdir, mkdtemp, readdir, readFile, realpath, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Workspace } from "@cairn/core/workspace";
import { createLocalWorkspace } from "../local-workspace.ts";
import type { LocalWorkspaceOptions } from "../settings.ts";

/**
 * A temporary workspace for tests: `root` lives in `base`, beside a canary file and an `outside`
 * directory whose contents must never show up in anything the workspace returns.
 */
export type Fixture = {
  base: string;
  root: string;
  outside: string;
  canaryPath: string;
  canary: string;
  /** Everything outside the root, as it was when the fixture was made. */
  snapshotOutside: () => Promise<string>;
  cleanup: () => Promise<void>;
};

export async function makeFixture(): Promise<Fixture> {
  const base = await realpath(await mkdtemp(join(tmpdir(), "cairn-worker-test-")));
  const root = join(base, "ws");
  const outside = join(base, "outside");
  const canary = `CANARY-${randomBytes(8).toString("hex")}`;
  const canaryPath = join(base, "canary.txt");
  await mkdir(root);
  await mkdir(outside);
  await writeFile(canaryPath, `${canary}\n`);
  await writeFile(join(outside, "secret.txt"), `${canary} in outside\n`);
  // Every entry beside the workspace (links not followed), with file contents.
  const snapshotOutside = async () => {
    const lines: string[] = [];
    const visit = async (directory: string): Promise<void> => {
      for (const entry of (await readdir(directory, { withFileTypes: true })).sort((left, right) => left.name.localeCompare(right.name))) {
        const path = join(directory, entry.name);
        if (path === root) continue;
        if (entry.isDirectory()) {
          lines.push(`${path}/`);
          await visit(path);
        } else {
          lines.push(`${path}=${entry.isFile() ? await readFile(path, "utf8") : "<special>"}`);
        }
      }
    };
    await visit(base);
    return lines.join("\n");
  };
  return { base, root, outside, canary, canaryPath, snapshotOutside, cleanup: () => rm(base, { recursive: true, force: true }) };
}

export async function openWorkspace(fixture: Fixture, options: Partial<LocalWorkspaceOptions> = {}): Promise<Workspace> {
  return createLocalWorkspace({ root: fixture.root, sandbox: { enabled: true }, ...options });
}

export function execOptions(overrides: { shellId?: string; timeoutMs?: number; signal?: AbortSignal; maxOutputChars?: number } = {}) {
  return {
    shellId: overrides.shellId ?? "main",
    timeoutMs: overrides.timeoutMs ?? 15_000,
    signal: overrides.signal ?? new AbortController().signal,
    ...(overrides.maxOutputChars === undefined ? {} : { maxOutputChars: overrides.maxOutputChars }),
  };
}

/** A `sleep` with a command line no other process has, to find it on the host and check that it is gone. */
export function uniqueSleep(): { command: string; argv: string[] } {
  const seconds = `900.${randomInt(1_000_000, 9_999_999)}`;
  return { command: `sleep ${seconds}`, argv: ["sleep", seconds] };
}

/** Host pids whose exact argv is `argv` (read from /proc). */
export async function processesWithArgv(argv: readonly string[]): Promise<number[]> {
  const wanted = `${argv.join("\0")}\0`;
  const pids: number[] = [];
  for (const entry of await readdir("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    const commandLine = await readFile(`/proc/${entry}/cmdline`, "utf8").catch(() => "");
    if (commandLine === wanted) pids.push(Number(entry));
  }
  return pids;
}
