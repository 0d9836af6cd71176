import { readdir, readFile, stat } from "node:fs/promises";
import { join } from "node:path";
import { type AgentFiles, type FileKind, WorkspaceError } from "@cairn/core";
import { PathConfiner } from "@cairn/worker/confine";

/**
 * `.claude/agents` of a workspace served by a local worker process, read from the disk that process shares with this
 * one, so the agent types are known (the Agent tool's description is in the first request) before the worker is up.
 * Confined by the worker's own PathConfiner: every path must lie inside `root` once symlinks are followed.
 */
export function diskAgentFiles(root: string): AgentFiles {
  let confiner: Promise<PathConfiner> | undefined;
  const inside = async (path: string): Promise<string> => (await (confiner ??= PathConfiner.create(root))).resolve(path);
  const missing = (path: string) => (error: unknown) => {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") throw new WorkspaceError("not_found", `${path} does not exist`, { path, cause: error });
    throw error;
  };
  const kindOf = (entry: { isFile(): boolean; isDirectory(): boolean; isSymbolicLink(): boolean }): FileKind =>
    entry.isFile() ? "file" : entry.isDirectory() ? "directory" : entry.isSymbolicLink() ? "symlink" : "other";
  return {
    root,
    async stat(path) {
      const real = await inside(path).catch(() => null);
      if (real === null) return null;
      // The confiner followed every link, so this is what the path points to.
      const info = await stat(real).catch((error: unknown) => {
        if ((error as NodeJS.ErrnoException).code === "ENOENT") return null;
        throw error;
      });
      if (info === null) return null;
      return { path: real, kind: kindOf(info), size: info.size, mtimeMs: info.mtimeMs, mode: info.mode };
    },
    async list(path) {
      const directory = await inside(path);
      const entries = await readdir(directory, { withFileTypes: true }).catch(missing(path));
      return entries.map((entry) => ({ name: entry.name, path: join(directory, entry.name), kind: kindOf(entry) }));
    },
    async readFile(path) {
      return new Uint8Array(await readFile(await inside(path)).catch(missing(path)));
    },
  };
}
