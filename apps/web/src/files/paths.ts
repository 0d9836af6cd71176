export const dirname = (path: string): string => {
  const index = path.lastIndexOf("/");
  return index <= 0 ? "/" : path.slice(0, index);
};

export const basename = (path: string): string => path.slice(path.lastIndexOf("/") + 1);

export const joinPath = (dir: string, name: string): string => (dir.endsWith("/") ? dir + name : `${dir}/${name}`);

/** A path as the user reads it: relative to the workspace root. */
export const relativeTo = (root: string, path: string): string => (path === root ? "." : path.startsWith(`${root}/`) ? path.slice(root.length + 1) : path);

/** A name typed into the tree: one path segment, no traversal. */
export function validName(name: string): string | null {
  const trimmed = name.trim();
  if (!trimmed) return "Enter a name.";
  if (trimmed === "." || trimmed === "..") return "That name is reserved.";
  if (trimmed.includes("/") || trimmed.includes("\\")) return "A name cannot contain a slash.";
  if (trimmed.includes("\0")) return "A name cannot contain NUL.";
  return null;
}

/** Left padding of a tree row at a nesting depth. */
export const indent = (depth: number): string => `${0.5 + depth * 0.9}rem`;
