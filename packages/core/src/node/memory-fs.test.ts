import { mkdtemp, rm, stat, utimes, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it, onTestFinished } from "vitest";
import { createNodeMemoryFs } from "./memory-fs.ts";

describe("node memory fs: mtimes", () => {
  it("gives the mtime of each file and directory in one call, null for a missing path, and sees a change", async () => {
    const dir = await mkdtemp(join(tmpdir(), "cairn-memory-fs-"));
    onTestFinished(() => rm(dir, { recursive: true, force: true }));
    const file = join(dir, "CLAUDE.md");
    await writeFile(file, "rules\n");
    const fs = createNodeMemoryFs();
    const [fileTime, dirTime, missing] = await fs.mtimes([file, dir, join(dir, "absent.md")]);
    expect(fileTime).toBe((await stat(file)).mtimeMs);
    expect(dirTime).toBe((await stat(dir)).mtimeMs);
    expect(missing).toBeNull();
    await utimes(file, new Date(2030, 0, 1), new Date(2030, 0, 1));
    const [changed] = await fs.mtimes([file]);
    expect(changed).not.toBe(fileTime);
    expect(changed).toBe((await stat(file)).mtimeMs);
  });
});
