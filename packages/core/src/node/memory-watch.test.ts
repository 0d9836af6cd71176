import { mkdir, mkdtemp, realpath, rm, symlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import type { MemoryWatch } from "../memory/port.ts";
import { watchMemoryPaths } from "./memory-watch.ts";

const opened: MemoryWatch[] = [];
const watching = (paths: string[]): MemoryWatch => {
  const watch = watchMemoryPaths(paths);
  if (!watch) throw new Error("no watch");
  opened.push(watch);
  return watch;
};
afterEach(() => {
  for (const watch of opened.splice(0)) watch.close();
});

describe("node memory watch", () => {
  it("reports nothing while nothing changes, and an edit as soon as the write has returned", async () => {
    const dir = await realpath(await mkdtemp(join(tmpdir(), "cairn-memory-watch-")));
    const file = join(dir, "CLAUDE.md");
    await writeFile(file, "one\n");
    const watch = watching([file, join(dir, ".claude", "CLAUDE.md")]);
    expect(await watch.changed()).toBe(false);
    expect(await watch.changed()).toBe(false);
    await writeFile(file, "two\n");
    expect(await watch.changed()).toBe(true);
    await rm(dir, { recursive: true, force: true });
  });

  it("sees a file created where a missing directory would hold it, and a file in a watched directory", async () => {
    const dir = await realpath(await mkdtemp(join(tmpdir(), "cairn-memory-watch-")));
    await mkdir(join(dir, "project", "skills"), { recursive: true });
    const missing = watching([join(dir, ".claude", "CLAUDE.md")]);
    const skills = watching([join(dir, "project", "skills")]);
    await mkdir(join(dir, ".claude"));
    expect(await missing.changed()).toBe(true);
    expect(await skills.changed()).toBe(false);
    await mkdir(join(dir, "project", "skills", "notes"));
    expect(await skills.changed()).toBe(true);
    await rm(dir, { recursive: true, force: true });
  });

  it("sees an edit of a symlinked memory file's target elsewhere", async () => {
    const dir = await realpath(await mkdtemp(join(tmpdir(), "cairn-memory-watch-")));
    await mkdir(join(dir, "shared"));
    await mkdir(join(dir, "ws"));
    await writeFile(join(dir, "shared", "rules.md"), "one\n");
    await symlink(join(dir, "shared", "rules.md"), join(dir, "ws", "CLAUDE.md"));
    const watch = watching([join(dir, "ws", "CLAUDE.md")]);
    expect(await watch.changed()).toBe(false);
    await writeFile(join(dir, "shared", "rules.md"), "two\n");
    expect(await watch.changed()).toBe(true);
    await rm(dir, { recursive: true, force: true });
  });

  it("reports nothing more once closed", async () => {
    const dir = await realpath(await mkdtemp(join(tmpdir(), "cairn-memory-watch-")));
    const watch = watchMemoryPaths([join(dir, "CLAUDE.md")])!;
    watch.close();
    await writeFile(join(dir, "CLAUDE.md"), "one\n");
    expect(await watch.changed()).toBe(false);
    await rm(dir, { recursive: true, force: true });
  });
});
