import type { MemoryFs } from "./port.ts";

/**
 * An in-memory `MemoryFs` for tests: files by absolute path (directories are implied by the paths),
 * symlinks as a map from link to target, and `touch` to move a file's mtime.
 */
export function createFakeMemoryFs(initial: Record<string, string>, links: Record<string, string> = {}) {
  const files = new Map<string, { text: string; mtimeMs: number }>();
  let clock = 1;
  const write = (path: string, text: string) => files.set(path, { text, mtimeMs: clock++ });
  for (const [path, text] of Object.entries(initial)) write(path, text);
  const real = (path: string): string => {
    for (const [link, target] of Object.entries(links)) if (path === link || path.startsWith(`${link}/`)) return target + path.slice(link.length);
    return path;
  };
  const children = (dir: string) => {
    const prefix = `${dir}/`;
    const names = new Map<string, boolean>();
    for (const path of files.keys()) {
      if (!path.startsWith(prefix)) continue;
      const rest = path.slice(prefix.length).split("/");
      names.set(rest[0]!, (names.get(rest[0]!) ?? false) || rest.length > 1);
    }
    return names;
  };
  const dirMtime = (dir: string): number | null => {
    let newest: number | null = null;
    for (const [path, file] of files) if (path.startsWith(`${dir}/`)) newest = Math.max(newest ?? 0, file.mtimeMs);
    return newest;
  };
  let stats = 0;
  const fs: MemoryFs = {
    async stat(path) {
      stats++;
      const file = files.get(real(path));
      if (file) return { mtimeMs: file.mtimeMs, isDirectory: false };
      const mtime = dirMtime(real(path));
      return mtime === null ? null : { mtimeMs: mtime, isDirectory: true };
    },
    async mtimes(paths) {
      return Promise.all(paths.map(async (path) => (await fs.stat(path))?.mtimeMs ?? null));
    },
    async readText(path) {
      return files.get(real(path))?.text ?? null;
    },
    async listDirectories(path) {
      if (dirMtime(real(path)) === null) return null;
      return [...children(real(path))].filter(([, isDir]) => isDir).map(([name]) => name);
    },
    async listFiles(path) {
      if (dirMtime(real(path)) === null) return null;
      return [...children(real(path))].filter(([, isDir]) => !isDir).map(([name]) => name);
    },
    async realPath(path) {
      const target = real(path);
      return files.has(target) || dirMtime(target) !== null ? target : null;
    },
  };
  return {
    fs,
    write,
    remove: (path: string) => files.delete(path),
    statCount: () => stats,
  };
}
