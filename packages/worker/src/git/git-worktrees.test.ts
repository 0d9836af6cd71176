import { execFileSync } from "node:child_process";
import { existsSync } from "node:fs";
import { mkdir, mkdtemp, readFile, realpath, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createGitWorktrees } from "./git-worktrees.ts";

let parent: string;
let root: string;
let home: string;
let worktreesDirectory: string;

beforeEach(async () => {
  parent = await realpath(await mkdtemp(join(tmpdir(), "cairn-worktrees-")));
  root = join(parent, "ws");
  home = join(parent, "home");
  worktreesDirectory = join(parent, "cairn-home", "worktrees", "ws");
  await Promise.all([mkdir(root), mkdir(home)]);
  await writeFile(join(root, "a.txt"), "one\ntwo\nthree\n");
});
afterEach(async () => {
  await rm(parent, { recursive: true, force: true });
});

const env = () => ({ PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: home });
const git = (args: string[], cwd = root) => execFileSync("git", ["-c", "user.name=T", "-c", "user.email=t@t", ...args], { cwd, env: env() }).toString();
const worktrees = () => createGitWorktrees({ root, home, path: env().PATH, worktreesDirectory });

describe("worktrees for parallel sessions", () => {
  it("refuses a workspace that is not a repository, and a name git cannot use", async () => {
    await expect(worktrees().add("s1")).rejects.toMatchObject({ code: "not_a_repository", message: expect.stringContaining("Run git init") });
    git(["init", "-q", "--initial-branch=main"]);
    await expect(worktrees().add("s1")).rejects.toThrow(/no commit yet/);
    git(["add", "a.txt"]);
    git(["commit", "-qm", "first"]);
    await expect(worktrees().add("../escape")).rejects.toMatchObject({ code: "invalid_branch_name" });
    expect(existsSync(join(parent, "escape"))).toBe(false);
  });

  it("two sessions edit the same file in their own worktrees; one merges back, the other's conflict is reported and nothing is lost; discard removes it", async () => {
    git(["init", "-q", "--initial-branch=main"]);
    git(["add", "a.txt"]);
    git(["commit", "-qm", "first"]);
    const first = await worktrees().add("s1");
    const second = await worktrees().add("s2");
    expect(await worktrees().repositoryDirectory()).toBe(join(root, ".git"));
    expect(await readFile(join(first.path, ".git"), "utf8")).toBe(`gitdir: ${join(root, ".git", "worktrees", "s1")}\n`);
    expect(first).toEqual({ name: "s1", path: join(worktreesDirectory, "s1"), branch: "cairn/s1", base: "main" });
    // The workspace's own tree stays clean: the worktrees live in Cairn's directory.
    expect(git(["status", "--porcelain"])).toBe("");
    await writeFile(join(first.path, "a.txt"), "one\nTWO from s1\nthree\n");
    await writeFile(join(second.path, "a.txt"), "one\nTWO from s2\nthree\n");
    await writeFile(join(second.path, "b.txt"), "new in s2\n");
    expect(await readFile(join(root, "a.txt"), "utf8")).toBe("one\ntwo\nthree\n");

    await worktrees().merge("s1", "main");
    expect(await readFile(join(root, "a.txt"), "utf8")).toBe("one\nTWO from s1\nthree\n");
    // Topological order: the commits are made within one second, so date order alone can list them either way.
    expect(git(["log", "--topo-order", "--format=%s", "-3"])).toBe("Merge branch 'cairn/s1'\nWork of the Cairn session s1\nfirst\n");

    await expect(worktrees().merge("s2", "main")).rejects.toMatchObject({
      code: "merge_conflict",
      message: expect.stringContaining("conflicts in a.txt; the merge was undone"),
    });
    // Nothing lost: the workspace is as the first merge left it, with no merge in progress; s2's work is on its branch.
    expect(await readFile(join(root, "a.txt"), "utf8")).toBe("one\nTWO from s1\nthree\n");
    expect(git(["status", "--porcelain"])).toBe("");
    expect(existsSync(join(root, ".git", "MERGE_HEAD"))).toBe(false);
    expect(git(["show", "cairn/s2:a.txt"])).toBe("one\nTWO from s2\nthree\n");
    expect(await readFile(join(second.path, "b.txt"), "utf8")).toBe("new in s2\n");

    await worktrees().discard("s2");
    expect(existsSync(second.path)).toBe(false);
    expect(git(["branch", "--list", "cairn/s2"])).toBe("");
    expect(git(["worktree", "list", "--porcelain"])).not.toContain("s2");
  });

  it("refuses to merge while the workspace is on another branch", async () => {
    git(["init", "-q", "--initial-branch=main"]);
    git(["add", "a.txt"]);
    git(["commit", "-qm", "first"]);
    await worktrees().add("s1");
    git(["switch", "-q", "-c", "other"]);
    await expect(worktrees().merge("s1", "main")).rejects.toThrow(/not on main: switch it back/);
  });
});
