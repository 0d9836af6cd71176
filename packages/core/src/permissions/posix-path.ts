// Lexical POSIX path helpers for the runtime-neutral engine (no `node:path` here). Symlinks are not
// followed: the Workspace port resolves real paths and refuses escapes; these helpers only decide
// which rule or mode applies.

/** Joins and normalises `path` against `base` when it is relative; collapses `.`, `..` and `//`. */
export function resolvePosix(base: string, path: string): string {
  const joined = path.startsWith("/") ? path : `${base}/${path}`;
  const parts: string[] = [];
  for (const segment of joined.split("/")) {
    if (segment === "" || segment === ".") continue;
    if (segment === "..") parts.pop();
    else parts.push(segment);
  }
  return `/${parts.join("/")}`;
}

/** True when `path` is `root` or lies below it (both absolute and normalised). */
export function isWithin(root: string, path: string): boolean {
  if (root === "/") return path.startsWith("/");
  return path === root || path.startsWith(`${root}/`);
}

/** `path` relative to `root`, or undefined when it lies outside. Both absolute and normalised. */
export function relativeWithin(root: string, path: string): string | undefined {
  if (!isWithin(root, path)) return undefined;
  if (path === root) return "";
  return root === "/" ? path.slice(1) : path.slice(root.length + 1);
}

export function dirnamePosix(path: string): string {
  const index = path.lastIndexOf("/");
  if (index <= 0) return "/";
  return path.slice(0, index);
}

const globSpecial = /[\\*?[\]{}()!+@]/g;

/** Escapes a literal path so picomatch treats it verbatim. */
export function escapeGlob(literal: string): string {
  return literal.replace(globSpecial, (character) => `\\${character}`);
}
