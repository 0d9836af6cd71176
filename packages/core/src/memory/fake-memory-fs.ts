import type { MemoryFs } from "./port.ts";

/**
 * An in-memory `MemoryFs` for tests: files by absolute path (directories are implied by the paths),
 * symlinks as a map from link to target, and `touch` to move a file's mtime. With `watch`, it offers
 * watches that any write or removal marks changed; `quietWrite` changes a file without telling them.
 */
export function createFakeMemoryFs(initial: Record<string, string>, links: Record<string, string> = {}, options: { watch?: boolean } = {}) {
  const files = new Map<string, { text: string; mtimeMs: number }>();
  let clock = 1;
  const watches = new Set<{ dirty: boolean }>();
  let watchesMade = 0;
  const notify = () => {
    for (const watch of watches) watch.dirty = true;
  };
  const quietWrite = (path: string, text: string) => files.set(path, { text, mtimeMs: clock++ });
  const write = (path: string, text: string) => {
    quietWrite(path, text);
    notify();
  };
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
    ...(options.watch
      ? {
          watch() {
            watchesMade++;
            const watch = { dirty: false };
            watches.add(watch);
            return { changed: async () => watch.dirty, close: () => void watches.delete(watch) };
          },
        }
      : {}),
  };
  return {
    fs,
    write,
    quietWrite,
    remove: (path: string) => {
      files.delete(path);
      notify();
    },
    statCount: () => stats,
    openWatches: () => watches.size,
    watchesMade: () => watchesMade,
  };
}
