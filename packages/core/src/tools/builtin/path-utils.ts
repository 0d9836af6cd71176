/**
 * POSIX path helpers for the built-in tools and the in-memory workspace. `core` may not import
 * `node:path`, and workspaces are POSIX (the worker runs on Linux), so these are lexical only:
 * symlinks are the Workspace port's business (`workspace.resolve`).
 */

export function isAbsolutePath(path: string): boolean {
  return path.startsWith("/");
}

/** Collapses `//`, `.` and `..` lexically. `..` never climbs above `/`. */
export function normalizePath(path: string): string {
  const absolute = isAbsolutePath(path);
  const segments: string[] = [];
  for (const segment of path.split("/")) {
    if (segment === "" || segment === ".") continue;
    if (segment === "..") {
      if (segments.length > 0 && segments[segments.length - 1] !== "..") segments.pop();
      else if (!absolute) segments.push("..");
      continue;
    }
    segments.push(segment);
  }
  const joined = segments.join("/");
  if (absolute) return `/${joined}`;
  return joined === "" ? "." : joined;
}

export function joinPath(base: string, ...parts: string[]): string {
  return normalizePath([base, ...parts].join("/"));
}

/** Absolute paths stay as they are (normalised); relative ones are taken from `base`. */
export function resolveFrom(base: string, path: string): string {
  return isAbsolutePath(path) ? normalizePath(path) : joinPath(base, path);
}

export function dirnameOf(path: string): string {
  const normalized = normalizePath(path);
  const index = normalized.lastIndexOf("/");
  if (index < 0) return ".";
  if (index === 0) return "/";
  return normalized.slice(0, index);
}

export function basenameOf(path: string): string {
  const normalized = normalizePath(path);
  return normalized.slice(normalized.lastIndexOf("/") + 1);
}

/** The extension with its dot, lower-cased: `.ts`; `""` for none (dotfiles have none). */
export function extnameOf(path: string): string {
  const name = basenameOf(path);
  const index = name.lastIndexOf(".");
  return index <= 0 ? "" : name.slice(index).toLowerCase();
}

export function isInside(root: string, path: string): boolean {
  const normalizedRoot = normalizePath(root);
  const normalized = normalizePath(path);
  if (normalized === normalizedRoot) return true;
  return normalized.startsWith(normalizedRoot === "/" ? "/" : `${normalizedRoot}/`);
}

/** `path` relative to `base` when it lies inside it (Claude Code shows search results this way); otherwise unchanged. */
export function relativeTo(base: string, path: string): string {
  if (!isAbsolutePath(path)) return path;
  const normalizedBase = normalizePath(base);
  const normalized = normalizePath(path);
  if (normalized === normalizedBase) return ".";
  const prefix = normalizedBase === "/" ? "/" : `${normalizedBase}/`;
  return normalized.startsWith(prefix) ? normalized.slice(prefix.length) : normalized;
}
