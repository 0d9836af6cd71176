import { afterAll } from "vitest";
import { createTempDirs } from "./temp-dirs.ts";

/**
 * For a test file, called once at its top level: `const tempDir = useTempDirs();`. Every folder `tempDir(prefix)`
 * makes is removed after the file's last test (with the transcripts and settings the runs wrote into it).
 */
export function useTempDirs(): (prefix: string) => Promise<string> {
  const dirs = createTempDirs();
  afterAll(() => dirs.removeAll());
  return dirs.make;
}
