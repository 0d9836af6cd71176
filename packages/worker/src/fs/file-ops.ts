import { constants, type Dirent, type Stats } from "node:fs";
import { lstat, mkdir, open, readdir, realpath, rename, rm, stat, unlink } from "node:fs/promises";
import { randomBytes } from "node:crypto";
import { basename, dirname, join } from "node:path";
import { WorkspaceError } from "@cairn/core/workspace";
import type { DirEntry, FileKind, FileStat } from "@cairn/core/workspace";
import { isErrno, toWorkspaceError } from "../errors.ts";
import type { PathConfiner } from "./confine.ts";
import { assertHandleInside, pinDirectory } from "./pinned.ts";

/** Reading more than this into memory at once is refused. */
export const MAX_READ_BYTES = 256 * 1024 * 1024;

export function kindOf(stats: Stats | Dirent): FileKind {
  if (stats.isSymbolicLink()) return "symlink";
  if (stats.isFile()) return "file";
  if (stats.isDirectory()) return "directory";
  return "other";
}

export function toFileStat(path: string, stats: Stats): FileStat {
  return { path, kind: kindOf(stats), size: stats.size, mtimeMs: stats.mtimeMs, mode: stats.mode };
}

/** The file operations of the Workspace port, each confined by the given PathConfiner. */
export class FileOps {
  private readonly confiner: PathConfiner;
  private readonly placeholdersAmong: (paths: readonly string[]) => ReadonlySet<string>;

  /** `placeholdersAmong`: which of a listing's directories are sandbox placeholders, left out of it. */
  constructor(confiner: PathConfiner, placeholdersAmong: (paths: readonly string[]) => ReadonlySet<string> = () => new Set()) {
    this.confiner = confiner;
    this.placeholdersAmong = placeholdersAmong;
  }

  async stat(path: string): Promise<FileStat | null> {
    const real = await this.confiner.resolve(path);
    try {
      return toFileStat(real, await stat(real));
    } catch (error) {
      if (isErrno(error, "ENOENT", "ENOTDIR")) return null;
      throw toWorkspaceError(error, path, "stat");
    }
  }

  async readFile(path: string, signal?: AbortSignal): Promise<Uint8Array> {
    const real = await this.confiner.resolve(path);
    signal?.throwIfAborted();
    let handle;
    try {
      // O_NOFOLLOW: a link swapped in after resolving is refused; O_NONBLOCK: a FIFO cannot hang the read.
      handle = await open(real, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
    } catch (error) {
      if (isErrno(error, "ELOOP"))
        throw new WorkspaceError("outside_workspace", `${path} changed into a symbolic link while being read`, { path, cause: error });
      throw toWorkspaceError(error, path, "read");
    }
    try {
      await assertHandleInside(this.confiner, handle, path);
      const stats = await handle.stat();
      if (stats.isDirectory()) throw new WorkspaceError("is_directory", `Could not read ${path}: it is a directory`, { path });
      if (!stats.isFile()) throw new WorkspaceError("invalid_path", `Could not read ${path}: it is not a regular file`, { path });
      if (stats.size > MAX_READ_BYTES) {
        throw new WorkspaceError("too_large", `Could not read ${path}: it is ${stats.size} bytes, more than the ${MAX_READ_BYTES}-byte limit`, { path });
      }
      const data = await handle.readFile(signal === undefined ? {} : { signal });
      return new Uint8Array(data.buffer, data.byteOffset, data.byteLength);
    } catch (error) {
      if (signal?.aborted) throw error;
      throw toWorkspaceError(error, path, "read");
    } finally {
      await handle.close();
    }
  }

  /** Atomic: a temporary file in the same directory is renamed over the target; keeps the target's mode and owner. */
  async writeFile(path: string, data: string | Uint8Array, signal?: AbortSignal): Promise<FileStat> {
    const real = await this.confiner.resolve(path);
    let existing: Stats | null = null;
    try {
      existing = await lstat(real);
    } catch (error) {
      if (!isErrno(error, "ENOENT")) throw toWorkspaceError(error, path, "write");
    }
    if (existing?.isDirectory()) throw new WorkspaceError("is_directory", `Could not write ${path}: it is a directory`, { path });
    if (existing !== null && !existing.isFile()) throw new WorkspaceError("invalid_path", `Could not write ${path}: it is not a regular file`, { path });
    const directory = dirname(real);
    await this.ensureDirectory(directory, path);
    signal?.throwIfAborted();
    // Both names go through the held directory, so a link swapped in for it cannot redirect the write.
    const pinned = await pinDirectory(this.confiner, directory, path);
    const temporary = `${pinned.path}/${temporaryName(basename(real))}`;
    const mode = existing === null ? 0o666 : existing.mode & 0o7777;
    let renamed = false;
    try {
      const handle = await open(temporary, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW, mode);
      try {
        await handle.writeFile(data, signal === undefined ? {} : { signal });
        if (existing !== null) {
          await handle.chmod(mode);
          await handle.chown(existing.uid, existing.gid).catch(() => undefined);
        }
        await handle.datasync();
      } finally {
        await handle.close();
      }
      const target = `${pinned.path}/${basename(real)}`;
      await rename(temporary, target);
      renamed = true;
      return toFileStat(real, await stat(target));
    } catch (error) {
      if (signal?.aborted) throw error;
      throw toWorkspaceError(error, path, "write");
    } finally {
      if (!renamed) await unlink(temporary).catch(() => undefined);
      await pinned.close();
    }
  }

  async list(path: string): Promise<DirEntry[]> {
    const real = await this.confiner.resolve(path);
    let entries: Dirent[];
    const pinned = await pinDirectory(this.confiner, real, path);
    try {
      entries = await readdir(pinned.path, { withFileTypes: true });
    } catch (error) {
      throw toWorkspaceError(error, path, "list");
    } finally {
      await pinned.close();
    }
    const listed = entries.map((entry) => ({ name: entry.name, path: join(real, entry.name), kind: kindOf(entry) }));
    const placeholders = this.placeholdersAmong(listed.filter((entry) => entry.kind === "directory").map((entry) => entry.path));
    return listed.filter((entry) => !placeholders.has(entry.path)).sort((left, right) => (left.name < right.name ? -1 : left.name > right.name ? 1 : 0));
  }

  async mkdir(path: string): Promise<void> {
    const real = await this.confiner.resolve(path);
    await this.ensureDirectory(real, path);
  }

  async remove(path: string): Promise<void> {
    const { entry } = await this.confiner.resolveEntry(path);
    const parent = await pinDirectory(this.confiner, dirname(entry), path);
    try {
      const held = `${parent.path}/${basename(entry)}`;
      await lstat(held);
      await rm(held, { recursive: true });
    } catch (error) {
      throw toWorkspaceError(error, path, "remove");
    } finally {
      await parent.close();
    }
  }

  async rename(from: string, to: string): Promise<void> {
    const source = await this.confiner.resolveEntry(from);
    const destination = await this.confiner.resolveEntry(to);
    await this.ensureDirectory(dirname(destination.entry), to);
    const sourceParent = await pinDirectory(this.confiner, dirname(source.entry), from);
    try {
      const destinationParent = await pinDirectory(this.confiner, dirname(destination.entry), to);
      try {
        await rename(`${sourceParent.path}/${basename(source.entry)}`, `${destinationParent.path}/${basename(destination.entry)}`);
      } finally {
        await destinationParent.close();
      }
    } catch (error) {
      throw toWorkspaceError(error, isErrno(error, "ENOENT") ? from : to, "rename");
    } finally {
      await sourceParent.close();
    }
  }

  /** mkdir -p, then checks that nothing on the way turned into a link leading out while it ran. */
  private async ensureDirectory(directory: string, shown: string): Promise<void> {
    try {
      await mkdir(directory, { recursive: true });
    } catch (error) {
      if (isErrno(error, "EEXIST", "ENOTDIR"))
        throw new WorkspaceError("not_directory", `Could not create ${shown}: a component of the path is a file`, { path: shown, cause: error });
      throw toWorkspaceError(error, shown, "create directory");
    }
    const real = await realpath(directory).catch((error: unknown) => {
      throw toWorkspaceError(error, shown, "create directory");
    });
    if (real !== directory || !this.confiner.contains(real)) {
      throw new WorkspaceError("outside_workspace", `${shown} changed to lead outside the workspace while it was being created`, { path: shown });
    }
  }
}

function temporaryName(name: string): string {
  const suffix = `.cairn-${randomBytes(6).toString("hex")}.tmp`;
  const prefix = `.${name}`;
  return Buffer.byteLength(prefix + suffix) <= 255 ? prefix + suffix : suffix.slice(1);
}
