import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";

/** Temporary folders made for one owner (a test file, a benchmark run) and removed together when it is done. */
export type TempDirs = {
  /** A new empty folder `<tmpdir>/cairn-<prefix>-XXXXXX`. */
  make(prefix: string): Promise<string>;
  /** Removes every folder made so far, with whatever the run left inside. */
  removeAll(): Promise<void>;
};

export function createTempDirs(): TempDirs {
  const made: string[] = [];
  return {
    async make(prefix) {
      const directory = await mkdtemp(join(tmpdir(), `cairn-${prefix}-`));
      made.push(directory);
      return directory;
    },
    async removeAll() {
      const directories = made.splice(0);
      await Promise.all(directories.map((directory) => rm(directory, { recursive: true, force: true })));
    },
  };
}
