import { constants, existsSync } from "node:fs";
import { open, readlink, type FileHandle } from "node:fs/promises";
import { WorkspaceError } from "@cairn/core/workspace";
import { toWorkspaceError } from "../errors.ts";
import type { PathConfiner } from "./confine.ts";

// Where the kernel names open files; absent off Linux, where the pinning below is skipped.
const fdDirectory = existsSync("/proc/self/fd") ? "/proc/self/fd" : undefined;

/**
 * A directory held open by descriptor. A sandboxed command can swap a directory on a resolved path for a
 * link between the check and the use; paths under `/proc/self/fd/N` go to the directory that was opened
 * and checked, whatever happens to its name afterwards. `path` is that stable prefix.
 */
export type PinnedDirectory = { path: string; close: () => Promise<void> };

export async function pinDirectory(confiner: PathConfiner, realDirectory: string, shown: string): Promise<PinnedDirectory> {
  if (fdDirectory === undefined) return { path: realDirectory, close: async () => undefined };
  let handle: FileHandle;
  try {
    handle = await open(realDirectory, constants.O_RDONLY | constants.O_DIRECTORY | constants.O_NOFOLLOW);
  } catch (error) {
    throw toWorkspaceError(error, shown, "open directory");
  }
  try {
    await assertHandleInside(confiner, handle, shown);
  } catch (error) {
    await handle.close();
    throw error;
  }
  return { path: `${fdDirectory}/${handle.fd}`, close: () => handle.close() };
}

/** Checks where an open file or directory really is: inside the workspace, or it is refused. */
export async function assertHandleInside(confiner: PathConfiner, handle: FileHandle, shown: string): Promise<void> {
  if (fdDirectory === undefined) return;
  const actual = await readlink(`${fdDirectory}/${handle.fd}`);
  if (!confiner.contains(actual)) {
    throw new WorkspaceError("outside_workspace", `${shown} changed to lead outside the workspace while it was being used`, { path: shown });
  }
}
