import { execFileSync } from "node:child_process";
import { chmod, lstat, mkdir, readdir, readFile, readlink, stat, symlink, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { makeFixture, type Fixture } from "../testing/fixture.ts";
import { PathConfiner } from "./confine.ts";
import { FileOps } from "./file-ops.ts";

let fixture: Fixture;
let files: FileOps;

beforeEach(async () => {
  fixture = await makeFixture();
  files = new FileOps(await PathConfiner.create(fixture.root));
});

afterEach(async () => {
  await fixture.cleanup();
});

describe("writeFile", () => {
  it("keeps an existing file's mode, replaces its content and leaves no temporary file", async () => {
    const script = join(fixture.root, "run.sh");
    await writeFile(script, "#!/bin/sh\necho old\n");
    await chmod(script, 0o751);
    const before = await stat(script);
    const result = await files.writeFile("run.sh", "#!/bin/sh\necho new\n");
    const after = await stat(script);
    expect(after.mode & 0o7777).toBe(0o751);
    expect(after.ino).not.toBe(before.ino); // replaced by rename, not rewritten in place
    expect(await readFile(script, "utf8")).toBe("#!/bin/sh\necho new\n");
    expect(result).toMatchObject({ path: script, kind: "file", size: 19 });
    expect(await readdir(fixture.root)).toEqual(["run.sh"]);
  });

  it("creates parent directories and gives new files the usual mode", async () => {
    await files.writeFile("a/b/c.txt", new Uint8Array([104, 105]));
    expect(await readFile(join(fixture.root, "a/b/c.txt"), "utf8")).toBe("hi");
    const umask = process.umask();
    expect((await stat(join(fixture.root, "a/b/c.txt"))).mode & 0o777).toBe(0o666 & ~umask);
  });

  it("writes through an inside symbolic link to its target, keeping the link", async () => {
    await writeFile(join(fixture.root, "target.txt"), "old");
    await symlink("target.txt", join(fixture.root, "alias.txt"));
    await files.writeFile("alias.txt", "new");
    expect(await readFile(join(fixture.root, "target.txt"), "utf8")).toBe("new");
    expect(await readlink(join(fixture.root, "alias.txt"))).toBe("target.txt");
  });

  it("refuses a directory and a path through a file", async () => {
    await mkdir(join(fixture.root, "dir"));
    await writeFile(join(fixture.root, "file"), "x");
    await expect(files.writeFile("dir", "x")).rejects.toMatchObject({ code: "is_directory" });
    await expect(files.writeFile("file/child.txt", "x")).rejects.toMatchObject({ code: "not_directory" });
  });

  it("stops when aborted and cleans up its temporary file", async () => {
    const controller = new AbortController();
    controller.abort();
    await expect(files.writeFile("aborted.txt", "x", controller.signal)).rejects.toThrow();
    expect(await readdir(fixture.root)).toEqual([]);
  });
});

describe("readFile, stat and list", () => {
  it("reads bytes, stats and lists sorted entries with their kinds", async () => {
    await mkdir(join(fixture.root, "sub"));
    await writeFile(join(fixture.root, "b.txt"), "bee");
    await symlink("b.txt", join(fixture.root, "a-link"));
    expect(Buffer.from(await files.readFile("b.txt")).toString()).toBe("bee");
    expect(await files.stat("b.txt")).toMatchObject({ kind: "file", size: 3 });
    expect(await files.stat("missing.txt")).toBeNull();
    const entries = await files.list(".");
    expect(entries.map((entry) => [entry.name, entry.kind])).toEqual([
      ["a-link", "symlink"],
      ["b.txt", "file"],
      ["sub", "directory"],
    ]);
    expect(entries[0]?.path).toBe(join(fixture.root, "a-link"));
  });

  it("reports missing files, directories and special files with their codes", async () => {
    await mkdir(join(fixture.root, "dir"));
    execFileSync("mkfifo", [join(fixture.root, "pipe")]);
    await expect(files.readFile("missing.txt")).rejects.toMatchObject({ code: "not_found", message: expect.stringContaining("missing.txt") });
    await expect(files.readFile("dir")).rejects.toMatchObject({ code: "is_directory" });
    // A FIFO would block a read forever; it is refused instead.
    await expect(files.readFile("pipe")).rejects.toMatchObject({ code: "invalid_path" });
    await expect(files.list("missing")).rejects.toMatchObject({ code: "not_found" });
  });
});

describe("mkdir, remove and rename", () => {
  it("creates nested directories, renames into new directories and removes trees", async () => {
    await files.mkdir("x/y");
    await files.writeFile("x/y/z.txt", "z");
    await files.rename("x/y/z.txt", "moved/here/z.txt");
    expect(await readFile(join(fixture.root, "moved/here/z.txt"), "utf8")).toBe("z");
    await files.remove("x");
    await expect(lstat(join(fixture.root, "x"))).rejects.toThrow();
    await expect(files.remove("x")).rejects.toMatchObject({ code: "not_found" });
  });

  it("removes an inside symbolic link itself, not what it points to", async () => {
    await mkdir(join(fixture.root, "data"));
    await writeFile(join(fixture.root, "data", "keep.txt"), "keep");
    await symlink("data", join(fixture.root, "data-link"));
    await files.remove("data-link");
    expect(await readFile(join(fixture.root, "data", "keep.txt"), "utf8")).toBe("keep");
  });

  it("refuses to remove or rename the workspace root", async () => {
    await expect(files.remove(".")).rejects.toMatchObject({ code: "invalid_path" });
    await expect(files.rename(".", "elsewhere")).rejects.toMatchObject({ code: "invalid_path" });
  });
});
