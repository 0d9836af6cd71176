import { readdir, readFile, realpath, stat } from "node:fs/promises";
import { isAbsolute, join, resolve } from "node:path";
import { type AgentFiles, type FileKind, WorkspaceError } from "@cairn/core";

/**
 * `.claude/agents` of a workspace served by a local worker process, read from the disk that process shares with this
 * one, so the agent types are known (the Agent tool's description is in the first request) before the worker is up.
 * Confined like the worker's reads: every path must lie inside `root` once symlinks are followed.
 */
export function diskAgentFiles(root: string): AgentFiles {
  const inside = async (path: string): Promise<string> => {
    const real = await realpath(isAbsolute(path) ? path : resolve(root, path)).catch((error: unknown) => {
      throw new WorkspaceError("not_found", `${path} does not exist`, { path, cause: error });
    });
    if (real !== root && !real.startsWith(`${root}/`)) throw new WorkspaceError("outside_workspace", `${path} is outside the workspace`, { path });
    return real;
  };
  const kindOf = (entry: { isFile(): boolean; isDirectory(): boolean; isSymbolicLink(): boolean }): FileKind =>
    entry.isFile() ? "file" : entry.isDirectory() ? "directory" : entry.isSymbolicLink() ? "symlink" : "other";
  return {
    root,
    async stat(path) {
      const real = await inside(path).catch(() => null);
      if (real === null) return null;
      const info = await stat(real);
      // `realpath` followed every link, so this is what the path points to.
      return { path: real, kind: kindOf(info), size: info.size, mtimeMs: info.mtimeMs, mode: info.mode };
    },
    async list(path) {
      const directory = await inside(path);
      const entries = await readdir(directory, { withFileTypes: true });
      return entries.map((entry) => ({ name: entry.name, path: join(directory, entry.name), kind: kindOf(entry) }));
    },
    async readFile(path) {
      return new Uint8Array(await readFile(await inside(path)));
    },
  };
}
