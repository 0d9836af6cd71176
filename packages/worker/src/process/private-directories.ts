import { createHash } from "node:crypto";
import { mkdtempSync } from "node:fs";
import { lstat, mkdtemp, readdir, rm } from "node:fs/promises";
import { hostname } from "node:os";
import { join } from "node:path";
import { processStartTime } from "./process-start.ts";

/**
 * What a private directory holds: a worker child's (`cairn-worker`), a workspace's shell home and temp (`cairn-ws`), a
 * terminal's (`cairn-term`) or a sandboxed command's, such as a stdio MCP server (`cairn-cmd`).
 */
export type PrivateDirectoryKind = "cairn-worker" | "cairn-ws" | "cairn-term" | "cairn-cmd";

/** This host's name, hashed: a directory shared with other hosts' containers (other pid namespaces) is never judged by our pids. */
const HOST = createHash("sha256").update(hostname()).digest("hex").slice(0, 8);

/**
 * The name a private directory starts with: its kind, this host and the process that removes it (pid and start time),
 * so that when that process was killed before it could, a later one can tell the directory is no one's.
 */
function prefixOf(kind: PrivateDirectoryKind, label: string | undefined): string {
  // A label (what the directory is for: `mcp-everything`) only helps a person reading the temp dir.
  // An empty one is none: `…--XXXXXX` would not be a name the sweep knows.
  const named = label ? `${label.replace(/[^A-Za-z0-9_-]/g, "_").slice(0, 40)}-` : "";
  return `${kind}-${HOST}-${process.pid}.${processStartTime(process.pid) ?? "0"}-${named}`;
}

/** Makes a private directory under `root` named after this process (see `removeStalePrivateDirectories`). */
export function makePrivateDirectorySync(root: string, kind: PrivateDirectoryKind, label?: string): string {
  sweepOnce(root, kind);
  return mkdtempSync(join(root, prefixOf(kind, label)));
}

export function makePrivateDirectory(root: string, kind: PrivateDirectoryKind, label?: string): Promise<string> {
  sweepOnce(root, kind);
  return mkdtemp(join(root, prefixOf(kind, label)));
}

const swept = new Set<string>();

/** The first private directory a process makes under a root sweeps it, in the background: a start is not held up by it. */
function sweepOnce(root: string, kind: PrivateDirectoryKind): void {
  const key = `${kind}\0${root}`;
  if (swept.has(key)) return;
  swept.add(key);
  setImmediate(() => void removeStalePrivateDirectories(root, kind).catch(() => undefined));
}

/**
 * Removes the private directories under `root` that a killed process left: named by this host, owned by this user, a
 * directory (not a link), and made by a process that no longer runs (no process with that pid, or one started at
 * another time). Anything else is left alone: another user's, another host's, a live process's, or a name of
 * another shape (an older version's); and everything where no process's start time can be read (no /proc). Returns
 * the names removed.
 */
export async function removeStalePrivateDirectories(
  root: string,
  kind: PrivateDirectoryKind,
  startOf: (pid: number) => string | undefined = processStartTime,
): Promise<string[]> {
  // Without /proc (not Linux) no process's start can be read, and every directory would look like a dead one's.
  if (startOf(process.pid) === undefined) return [];
  const pattern = new RegExp(`^${kind}-${HOST}-(\\d+)\\.(\\d+)-(?:[A-Za-z0-9_-]+-)?[A-Za-z0-9]{6}$`);
  const uid = process.getuid?.();
  const removed: string[] = [];
  for (const name of await readdir(root)) {
    const match = pattern.exec(name);
    if (!match) continue;
    const [, pid, started] = match;
    if (startOf(Number(pid)) === started) continue;
    const path = join(root, name);
    const info = await lstat(path).catch(() => undefined);
    if (!info?.isDirectory() || (uid !== undefined && info.uid !== uid)) continue;
    await rm(path, { recursive: true, force: true });
    removed.push(name);
  }
  return removed;
}
