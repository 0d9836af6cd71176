import { dirnamePosix, isWithin, resolvePosix } from "../permissions/posix-path.ts";
import { findImports } from "./imports.ts";
import { MAX_IMPORT_DEPTH, MAX_MEMORY_FILE_CHARS, type MemoryFile, type MemoryFs, type MemoryKind, type MemoryNotice } from "./port.ts";

export type MemoryLoadOptions = {
  fs: MemoryFs;
  homeDir: string;
  /** Real paths below which a memory file or an import may live: the workspace and the user's memory directories. */
  allowedRoots: readonly string[];
};

/** What a load read: the files, the notices, and the mtime of every path it looked at (null: nothing there). */
export type MemoryLoad = { files: MemoryFile[]; notices: MemoryNotice[]; watched: Map<string, number | null> };

/**
 * Loads memory files and, depth first, the files their `@path` imports name: relative to the importing
 * file, or `~/`. A cycle, a missing file, an import deeper than MAX_IMPORT_DEPTH or a path outside the
 * allowed roots is skipped with a notice; a file already loaded is not repeated.
 */
export async function loadMemoryFiles(roots: ReadonlyArray<{ path: string; kind: MemoryKind }>, options: MemoryLoadOptions): Promise<MemoryLoad> {
  const load: MemoryLoad = { files: [], notices: [], watched: new Map() };
  const seen = new Set<string>();
  for (const root of roots) await loadOne(root.path, root.kind, [], undefined, options, load, seen);
  return load;
}

async function loadOne(
  path: string,
  kind: MemoryKind,
  chain: readonly string[],
  importedFrom: string | undefined,
  options: MemoryLoadOptions,
  load: MemoryLoad,
  seen: Set<string>,
): Promise<void> {
  const stat = await options.fs.stat(path);
  load.watched.set(path, stat && !stat.isDirectory ? stat.mtimeMs : null);
  if (!stat || stat.isDirectory) {
    if (importedFrom) load.notices.push({ code: "memory_import_missing", path, message: `${importedFrom} imports ${path}, which does not exist; skipped.` });
    return;
  }
  const real = (await options.fs.realPath(path)) ?? path;
  if (chain.includes(real)) {
    load.notices.push({
      code: "memory_import_cycle",
      path,
      message: `${importedFrom ?? path} imports ${path}, which is already being imported (a cycle); skipped.`,
    });
    return;
  }
  if (!options.allowedRoots.some((root) => isWithin(root, real))) {
    load.notices.push({
      code: "memory_import_refused",
      path,
      message: `${importedFrom ?? "Memory"} imports ${path}, outside the workspace and the user's memory directories; refused.`,
    });
    return;
  }
  if (seen.has(real)) return;
  seen.add(real);
  const text = await options.fs.readText(path);
  if (text === null) return;
  const truncated = text.length > MAX_MEMORY_FILE_CHARS;
  if (truncated) {
    load.notices.push({
      code: "memory_truncated",
      path,
      message: `${path} has ${text.length.toLocaleString("en-US")} characters; only the first ${MAX_MEMORY_FILE_CHARS.toLocaleString("en-US")} reach the model. Shorten it or split it into imported files.`,
    });
  }
  const content = truncated ? `${text.slice(0, MAX_MEMORY_FILE_CHARS)}\n\n[… cut: the file is longer than ${MAX_MEMORY_FILE_CHARS} characters]` : text;
  if (content.trim() !== "") load.files.push({ path, kind, content, chars: text.length, truncated, ...(importedFrom ? { importedFrom } : {}) });
  const imports = await findImports(content);
  if (imports.length === 0) return;
  if (chain.length + 1 > MAX_IMPORT_DEPTH) {
    load.notices.push({
      code: "memory_import_depth",
      path,
      message: `${path} imports more files, deeper than ${MAX_IMPORT_DEPTH} levels; those imports were skipped.`,
    });
    return;
  }
  for (const target of imports) {
    const resolved = target.startsWith("~/") ? resolvePosix(options.homeDir, target.slice(2)) : resolvePosix(dirnamePosix(path), target);
    await loadOne(resolved, kind, [...chain, real], path, options, load, seen);
  }
}
