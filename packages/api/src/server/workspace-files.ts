import { setTimeout as sleep } from "node:timers/promises";
import { Notifier, type Workspace } from "@cairn/core";
import type { WorkspaceFilesPort } from "../router/context.ts";
import { ApiError } from "../router/errors.ts";
import type { FileContent, TreeEntry, TreeResult, WorkspaceChange, WriteResult } from "../router/types.ts";
import { SharedWatch } from "./shared-watch.ts";

export const MAX_EDITOR_FILE_BYTES = 5 * 1024 * 1024;
/** Directories the tree does not show (they are still reachable by path). */
const HIDDEN_DIRECTORIES = new Set([".git"]);

/**
 * The editor's view of the workspace, through the same `Workspace` port the tools use, so the
 * same confinement applies: a path outside the root (after symlinks) is refused.
 */
export class WorkspaceFiles implements WorkspaceFilesPort {
  private readonly workspace: Workspace;
  readonly watcher: SharedWatch;

  private readonly statRetryMs: number;

  /** `statRetryMs`: the pause before a changed path whose stat failed is looked at again (default 0.5 s). */
  constructor(workspace: Workspace, options: { statRetryMs?: number } = {}) {
    this.workspace = workspace;
    this.watcher = new SharedWatch(workspace);
    this.statRetryMs = options.statRetryMs ?? STAT_RETRY_MS;
  }

  async tree(path: string | undefined): Promise<TreeResult> {
    const directory = await this.workspace.resolve(path ?? this.workspace.root);
    const entries = await this.workspace.list(directory);
    const visible: TreeEntry[] = entries
      .filter((entry) => !(entry.kind === "directory" && HIDDEN_DIRECTORIES.has(entry.name)))
      .map((entry) => ({ name: entry.name, path: entry.path, kind: entry.kind }));
    visible.sort((left, right) => rank(left) - rank(right) || left.name.localeCompare(right.name));
    return { path: directory, entries: visible };
  }

  async read(path: string): Promise<FileContent> {
    const resolved = await this.workspace.resolve(path);
    const stat = await this.workspace.stat(resolved);
    if (!stat) throw new ApiError("file_not_found", `${path} does not exist`, { details: { path: resolved } });
    if (stat.kind === "directory") throw new ApiError("invalid_path", `${path} is a directory`, { details: { path: resolved } });
    if (stat.size > MAX_EDITOR_FILE_BYTES) {
      throw new ApiError("too_large", `${path} is ${stat.size} bytes; the editor opens files up to ${MAX_EDITOR_FILE_BYTES} bytes`, {
        details: { path: resolved },
      });
    }
    const bytes = await this.workspace.readFile(resolved);
    const text = decodeText(bytes);
    return { path: resolved, content: text ?? "", mtimeMs: stat.mtimeMs, size: stat.size, binary: text === undefined };
  }

  async write(path: string, content: string, expectedMtimeMs: number | undefined): Promise<WriteResult> {
    const resolved = await this.workspace.resolve(path);
    if (expectedMtimeMs !== undefined) {
      // Not atomic with the write below, but it catches what matters: the agent or another tab
      // changed the file while it was open in this editor.
      const current = await this.workspace.stat(resolved);
      if (!current || current.mtimeMs !== expectedMtimeMs) {
        throw new ApiError("file_conflict", `${path} changed on disk since it was opened`, {
          details: { path: resolved, ...(current ? { currentMtimeMs: current.mtimeMs } : {}) },
        });
      }
    }
    const written = await this.workspace.writeFile(resolved, content);
    return { path: written.path, mtimeMs: written.mtimeMs, size: written.size };
  }

  async create(path: string, kind: "file" | "directory"): Promise<WriteResult> {
    const resolved = await this.workspace.resolve(path);
    if (await this.workspace.stat(resolved)) throw new ApiError("file_exists", `${path} already exists`, { details: { path: resolved } });
    if (kind === "file") {
      const written = await this.workspace.writeFile(resolved, "");
      return { path: written.path, mtimeMs: written.mtimeMs, size: written.size };
    }
    await this.workspace.mkdir(resolved);
    const stat = await this.workspace.stat(resolved);
    return { path: resolved, mtimeMs: stat?.mtimeMs ?? Date.now(), size: stat?.size ?? 0 };
  }

  async rename(from: string, to: string): Promise<void> {
    const source = await this.workspace.resolve(from);
    const target = await this.workspace.resolve(to);
    if (!(await this.workspace.stat(source))) throw new ApiError("file_not_found", `${from} does not exist`, { details: { path: source } });
    if (await this.workspace.stat(target)) throw new ApiError("file_exists", `${to} already exists`, { details: { path: target } });
    // The paths as given: renaming a symlink moves the link, not its target.
    await this.workspace.rename(from, to);
  }

  async delete(path: string): Promise<void> {
    const resolved = await this.workspace.resolve(path);
    if (resolved === this.workspace.root) throw new ApiError("invalid_path", "The workspace root cannot be deleted");
    if (!(await this.workspace.stat(resolved))) throw new ApiError("file_not_found", `${path} does not exist`, { details: { path: resolved } });
    await this.workspace.remove(path);
  }

  /** Changes coalesced by path while the subscriber is busy, so a burst never piles up. */
  async *watch(signal: AbortSignal): AsyncGenerator<WorkspaceChange> {
    const pending = new Map<string, "change" | "rename">();
    const retries = new Map<string, number>();
    const wakeUps = new Notifier();
    const unsubscribe = this.watcher.subscribe((event) => {
      // A new change to the path: its stat gets a fresh set of tries.
      retries.delete(event.path);
      pending.set(event.path, pending.get(event.path) === "rename" ? "rename" : event.type);
      wakeUps.notify();
    });
    try {
      while (!signal.aborted) {
        if (pending.size === 0) {
          await wakeUps.wait(signal);
          continue;
        }
        const batch = [...pending];
        pending.clear();
        const failed: Array<[string, "change" | "rename"]> = [];
        for (const [path, type] of batch) {
          // A stat that fails (the worker restarting: its calls in flight fail) says nothing about the file: only "not
          // there" is a delete. It is asked again a moment later (a few times), so the change is not lost.
          const stat = await this.workspace.stat(path).catch(() => undefined);
          if (signal.aborted) return;
          if (stat === undefined) {
            failed.push([path, type]);
            continue;
          }
          retries.delete(path);
          if (!stat) yield { type: "delete", path };
          else yield { type: type === "rename" ? "create" : "change", path, mtimeMs: stat.mtimeMs };
        }
        const again: Array<[string, "change" | "rename"]> = [];
        for (const [path, type] of failed) {
          const tries = (retries.get(path) ?? 0) + 1;
          // Given up on after STAT_RETRIES: forgotten, so the path's next change is looked at as many times again.
          if (tries > STAT_RETRIES) retries.delete(path);
          else {
            retries.set(path, tries);
            again.push([path, type]);
          }
        }
        if (again.length === 0) continue;
        // An abort ends the pause early; the loop then sees the aborted signal.
        await sleep(this.statRetryMs, undefined, { signal }).catch(() => undefined);
        for (const [path, type] of again) if (!pending.has(path)) pending.set(path, type);
      }
    } finally {
      unsubscribe();
    }
  }
}

/** How often, and how long apart, a changed path whose stat failed is looked at again. */
const STAT_RETRIES = 5;
const STAT_RETRY_MS = 500;

function rank(entry: TreeEntry): number {
  return entry.kind === "directory" ? 0 : 1;
}

/** UTF-8 text, or undefined for content that is not text (NUL bytes or invalid UTF-8). */
export function decodeText(bytes: Uint8Array): string | undefined {
  const probe = bytes.subarray(0, 8192);
  if (probe.includes(0)) return undefined;
  try {
    return new TextDecoder("utf-8", { fatal: true }).decode(bytes);
  } catch {
    return undefined;
  }
}
