import { mkdir, mkdtemp, realpath, rm, symlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { PathConfiner } from "./confine.ts";

let base: string;
let root: string;
let extra: string;
let confiner: PathConfiner;

beforeEach(async () => {
  base = await realpath(await mkdtemp(join(tmpdir(), "cairn-confine-")));
  root = join(base, "ws");
  extra = join(base, "extra");
  await mkdir(join(root, "src"), { recursive: true });
  await mkdir(extra);
  await writeFile(join(root, "src", "a.txt"), "a");
  await writeFile(join(base, "secret.txt"), "secret");
  confiner = await PathConfiner.create(root, [extra]);
});

afterEach(async () => {
  await rm(base, { recursive: true, force: true });
});

const codeOf = async (promise: Promise<unknown>) =>
  promise.then(
    () => "resolved",
    (error: { code?: string }) => error.code,
  );

describe("PathConfiner.resolve", () => {
  it("resolves relative and absolute paths inside the root, existing or not", async () => {
    expect(await confiner.resolve("src/a.txt")).toBe(join(root, "src", "a.txt"));
    expect(await confiner.resolve(join(root, "src"))).toBe(join(root, "src"));
    expect(await confiner.resolve("new/deep/file.txt")).toBe(join(root, "new", "deep", "file.txt"));
    expect(await confiner.resolve(".")).toBe(root);
  });

  it("accepts the additional directories", async () => {
    expect(await confiner.resolve(join(extra, "notes.md"))).toBe(join(extra, "notes.md"));
  });

  it("refuses .. escapes and absolute paths outside, naming the path", async () => {
    await expect(confiner.resolve("../secret.txt")).rejects.toMatchObject({ code: "outside_workspace", message: expect.stringContaining("../secret.txt") });
    await expect(confiner.resolve("src/../../secret.txt")).rejects.toMatchObject({ code: "outside_workspace" });
    await expect(confiner.resolve("/etc/passwd")).rejects.toMatchObject({ code: "outside_workspace" });
  });

  it("does not confuse a sibling that shares the root's name as a prefix", async () => {
    await mkdir(`${root}-evil`);
    await expect(confiner.resolve(`${root}-evil/x`)).rejects.toMatchObject({ code: "outside_workspace" });
  });

  it("follows symbolic links, including dangling and chained ones", async () => {
    await symlink(join(base, "secret.txt"), join(root, "out"));
    await symlink(join(base, "not-yet", "file"), join(root, "dangling"));
    await symlink("dangling", join(root, "chain"));
    await symlink("src", join(root, "inner"));
    await symlink("missing-inside.txt", join(root, "dangling-inside"));
    expect(await codeOf(confiner.resolve("out"))).toBe("outside_workspace");
    expect(await codeOf(confiner.resolve("dangling"))).toBe("outside_workspace");
    expect(await codeOf(confiner.resolve("chain"))).toBe("outside_workspace");
    expect(await confiner.resolve("inner/a.txt")).toBe(join(root, "src", "a.txt"));
    expect(await confiner.resolve("dangling-inside")).toBe(join(root, "missing-inside.txt"));
  });

  it("resolves a dangling link's relative target from the link's real directory", async () => {
    await mkdir(join(root, "a", "b"), { recursive: true });
    await symlink("a/b", join(root, "shortcut"));
    // Reached through `shortcut`, "../../../x" climbs from ws/a/b, so it leaves the workspace.
    await symlink("../../../x", join(root, "a", "b", "up"));
    expect(await codeOf(confiner.resolve("shortcut/up"))).toBe("outside_workspace");
  });

  it("refuses symbolic link loops as invalid paths", async () => {
    await symlink("loop-b", join(root, "loop-a"));
    await symlink("loop-a", join(root, "loop-b"));
    expect(await codeOf(confiner.resolve("loop-a"))).toBe("invalid_path");
  });

  it("refuses NUL bytes, empty paths, over-long names and lone surrogates with invalid_path", async () => {
    expect(await codeOf(confiner.resolve("a\0b"))).toBe("invalid_path");
    expect(await codeOf(confiner.resolve(""))).toBe("invalid_path");
    expect(await codeOf(confiner.resolve("x".repeat(256)))).toBe("invalid_path");
    expect(await codeOf(confiner.resolve(`a/${"é".repeat(200)}`))).toBe("invalid_path");
    expect(await codeOf(confiner.resolve("a/".repeat(2100)))).toBe("invalid_path");
    expect(await codeOf(confiner.resolve("bad\uD800name"))).toBe("invalid_path");
  });

  it("handles odd but valid Unicode names inside the workspace", async () => {
    for (const name of ["\u202Eevil.txt", "e\u0301.txt", "😀/🚀.md", "tab\tname", "new\nline"]) {
      expect(await confiner.resolve(name)).toBe(join(root, name));
    }
  });

  it("refuses /proc paths, which can reach anywhere", async () => {
    expect(await codeOf(confiner.resolve("/proc/self/root/etc/passwd"))).toBe("outside_workspace");
    expect(await codeOf(confiner.resolve(`/proc/self/cwd`))).toBe("outside_workspace");
  });

  it("refuses to act on the root itself as an entry", async () => {
    expect(await codeOf(confiner.resolveEntry("."))).toBe("invalid_path");
    expect(await codeOf(confiner.resolveEntry(extra))).toBe("invalid_path");
  });

  it("gives the link itself as the entry of an inside symbolic link", async () => {
    await symlink("src", join(root, "inner"));
    expect(await confiner.resolveEntry("inner")).toEqual({ entry: join(root, "inner"), target: join(root, "src") });
  });

  it("refuses / and missing directories as workspace roots", async () => {
    await expect(PathConfiner.create("/")).rejects.toMatchObject({ code: "invalid_path" });
    await expect(PathConfiner.create(join(base, "missing"))).rejects.toMatchObject({ code: "not_found" });
    await expect(PathConfiner.create("relative/dir")).rejects.toMatchObject({ code: "invalid_path" });
  });
});
