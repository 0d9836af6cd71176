import { lstat, readlink, realpath } from "node:fs/promises";
import { basename, dirname, isAbsolute, join, resolve, sep } from "node:path";
import { WorkspaceError } from "@cairn/core/workspace";
import { isErrno, toWorkspaceError } from "../errors.ts";

const MAX_NAME_BYTES = 255;
const MAX_PATH_BYTES = 4095;
const MAX_LINK_HOPS = 40;
const loneSurrogate = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/**
 * Confines paths to a set of real directories: a path (absolute, or relative to the first root) is
 * resolved by following every symbolic link, including dangling ones, and must end inside a root.
 */
export class PathConfiner {
  readonly root: string;
  readonly roots: readonly string[];

  private constructor(roots: readonly string[]) {
    const [root] = roots;
    if (root === undefined) throw new Error("PathConfiner needs at least one root");
    this.root = root;
    this.roots = roots;
  }

  /** Realpaths every directory; each must exist, be a directory, and not be `/`. */
  static async create(root: string, additionalDirectories: readonly string[] = []): Promise<PathConfiner> {
    const realRoots: string[] = [];
    for (const directory of [root, ...additionalDirectories]) {
      if (!isAbsolute(directory)) {
        throw new WorkspaceError("invalid_path", `Workspace directory ${directory} must be an absolute path`, { path: directory });
      }
      let real: string;
      try {
        real = await realpath(directory);
        const stats = await lstat(real);
        if (!stats.isDirectory()) throw new WorkspaceError("not_directory", `Workspace directory ${directory} is not a directory`, { path: directory });
      } catch (error) {
        throw toWorkspaceError(error, directory, "open workspace directory");
      }
      if (real === "/") throw new WorkspaceError("invalid_path", `Refusing to use / as a workspace directory (${directory})`, { path: directory });
      if (!realRoots.includes(real)) realRoots.push(real);
    }
    return new PathConfiner(realRoots);
  }

  contains(realPath: string): boolean {
    return this.roots.some((root) => realPath === root || realPath.startsWith(root + sep));
  }

  /** The root a real path lies in, if any. */
  rootOf(realPath: string): string | undefined {
    return this.roots.find((root) => realPath === root || realPath.startsWith(root + sep));
  }

  /** Lexically absolute form of the input, after validation; nothing on disk is consulted. */
  absolute(input: string): string {
    validateInput(input);
    const absolute = isAbsolute(input) ? resolve(input) : resolve(this.root, input);
    if (absolute === "/proc" || absolute.startsWith("/proc/")) {
      throw new WorkspaceError("outside_workspace", `${input} is outside the workspace (${this.root}): /proc is never accessible`, { path: input });
    }
    return absolute;
  }

  /** Follows every symbolic link and refuses anything that ends outside the workspace. */
  async resolve(input: string): Promise<string> {
    const absolute = this.absolute(input);
    const real = await realpathDeep(absolute, input);
    if (!this.contains(real)) {
      const shown = real === absolute ? input : `${input} (resolves to ${real})`;
      throw new WorkspaceError("outside_workspace", `${shown} is outside the workspace (${this.roots.join(", ")})`, { path: input });
    }
    return real;
  }

  /**
   * For operations on a directory entry itself (remove, rename): the entry's real parent joined with its
   * name, so a symbolic link is acted on as a link. The followed target must be confined as well.
   */
  async resolveEntry(input: string): Promise<{ entry: string; target: string }> {
    const target = await this.resolve(input);
    const absolute = this.absolute(input);
    const refuse = () => new WorkspaceError("invalid_path", `Refusing to remove or move the workspace directory itself (${input})`, { path: input });
    if (this.roots.includes(target) || this.roots.includes(absolute)) throw refuse();
    const parent = await this.resolve(dirname(absolute));
    const entry = join(parent, basename(absolute));
    if (this.roots.includes(entry)) throw refuse();
    return { entry, target };
  }
}

function validateInput(input: string): void {
  if (typeof input !== "string") throw new WorkspaceError("invalid_path", "A path must be a string");
  if (input.length === 0) throw new WorkspaceError("invalid_path", "The path is empty", { path: input });
  if (input.includes("\0")) throw new WorkspaceError("invalid_path", `The path ${JSON.stringify(input)} contains a NUL byte`, { path: input });
  if (loneSurrogate.test(input)) {
    throw new WorkspaceError("invalid_path", `The path ${JSON.stringify(input)} contains malformed Unicode (a lone surrogate)`, { path: input });
  }
  if (Buffer.byteLength(input) > MAX_PATH_BYTES) {
    throw new WorkspaceError("invalid_path", `The path is too long (${Buffer.byteLength(input)} bytes; the limit is ${MAX_PATH_BYTES})`, {
      path: input.slice(0, 200),
    });
  }
  for (const name of input.split("/")) {
    if (Buffer.byteLength(name) > MAX_NAME_BYTES) {
      throw new WorkspaceError(
        "invalid_path",
        `A name in the path is too long (${Buffer.byteLength(name)} bytes; the limit is ${MAX_NAME_BYTES}): ${name.slice(0, 60)}…`,
        { path: input.slice(0, 200) },
      );
    }
  }
}

/** realpath of the deepest existing ancestor plus the rest, following dangling links to where they lead. */
async function realpathDeep(absolute: string, input: string): Promise<string> {
  let current = absolute;
  const missing: string[] = [];
  let hops = 0;
  for (;;) {
    try {
      const real = await realpath(current);
      return missing.length === 0 ? real : join(real, ...missing.reverse());
    } catch (error) {
      if (isErrno(error, "ELOOP")) throw new WorkspaceError("invalid_path", `${input}: too many levels of symbolic links`, { path: input, cause: error });
      if (!isErrno(error, "ENOENT", "ENOTDIR")) throw toWorkspaceError(error, input, "resolve");
    }
    const link = await danglingLinkTarget(current);
    if (link !== undefined) {
      hops += 1;
      if (hops > MAX_LINK_HOPS) throw new WorkspaceError("invalid_path", `${input}: too many levels of symbolic links`, { path: input });
      current = link;
      continue;
    }
    const parent = dirname(current);
    if (parent === current) return join(current, ...missing.reverse());
    missing.push(basename(current));
    current = parent;
  }
}

async function danglingLinkTarget(path: string): Promise<string | undefined> {
  try {
    const stats = await lstat(path);
    if (!stats.isSymbolicLink()) return undefined;
    const target = await readlink(path);
    // Relative targets are relative to the link's real directory, not to the spelling that reached it.
    return resolve(await realpath(dirname(path)), target);
  } catch (error) {
    if (isErrno(error, "ENOENT", "ENOTDIR")) return undefined;
    throw error;
  }
}
