import type { MemoryFs, Workspace } from "@cairn/core";

/**
 * Memory files and skills (CLAUDE.md, CLAUDE.local.md, .claude/rules, .claude/skills …) of a workspace on a worker
 * host: paths inside the workspace are read over the worker protocol, every other path (the user's ~/.claude, Cairn's
 * home) on this node through `local`. No file events cross the protocol, so each check before a request stats what it
 * watches; every miss is a null, never a throw, as the port asks.
 */
export function createWorkerMemoryFs(workspace: Pick<Workspace, "root" | "stat" | "readFile" | "list">, local: MemoryFs): MemoryFs {
  const root = workspace.root;
  const onWorker = (path: string) => path === root || path.startsWith(`${root}/`);
  const remoteStat = async (path: string) => {
    const info = await workspace.stat(path).catch(() => null);
    return info && (info.kind === "file" || info.kind === "directory") ? info : null;
  };
  const listing = async (path: string, wantDirectories: boolean): Promise<string[] | null> => {
    const entries = await workspace.list(path).catch(() => null);
    if (!entries) return null;
    const names: string[] = [];
    for (const entry of entries) {
      // A symbolic link counts as what it points to (stat follows it, inside the workspace only).
      const kind = entry.kind === "symlink" ? (await remoteStat(entry.path))?.kind : entry.kind;
      if (kind === (wantDirectories ? "directory" : "file")) names.push(entry.name);
    }
    return names;
  };
  return {
    async stat(path) {
      if (!onWorker(path)) return local.stat(path);
      const info = await remoteStat(path);
      return info ? { mtimeMs: info.mtimeMs, isDirectory: info.kind === "directory" } : null;
    },
    async mtimes(paths) {
      const localPaths = paths.filter((path) => !onWorker(path));
      const localTimes = await local.mtimes(localPaths);
      const byPath = new Map(localPaths.map((path, index) => [path, localTimes[index] ?? null]));
      return Promise.all(paths.map(async (path) => (onWorker(path) ? ((await remoteStat(path))?.mtimeMs ?? null) : (byPath.get(path) ?? null))));
    },
    async readText(path) {
      if (!onWorker(path)) return local.readText(path);
      const bytes = await workspace.readFile(path).catch(() => null);
      return bytes ? new TextDecoder().decode(bytes) : null;
    },
    listDirectories: (path) => (onWorker(path) ? listing(path, true) : local.listDirectories(path)),
    listFiles: (path) => (onWorker(path) ? listing(path, false) : local.listFiles(path)),
    async realPath(path) {
      if (!onWorker(path)) return local.realPath(path);
      return (await remoteStat(path))?.path ?? null;
    },
  };
}
