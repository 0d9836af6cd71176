import { execFileSync } from "node:child_process";
import { mkdir, mkdtemp, realpath, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createGitRepository } from "./git-repository.ts";

let parent: string;
let root: string;
let home: string;

beforeEach(async () => {
  parent = await realpath(await mkdtemp(join(tmpdir(), "cairn-git-")));
  root = join(parent, "ws");
  home = join(parent, "home");
  await mkdir(root);
  await mkdir(home);
  await writeFile(join(root, "a.txt"), "one\n");
});
afterEach(async () => {
  await rm(parent, { recursive: true, force: true });
});

const repository = () => createGitRepository({ root, home, path: process.env.PATH ?? "/usr/bin:/bin" });
const gitLog = () => execFileSync("git", ["log", "--format=%s %an"], { cwd: root, env: { PATH: process.env.PATH ?? "", HOME: home } }).toString();

describe("git repository of a workspace", () => {
  it("says a plain folder is no repository, refuses to work in it, and git init makes one", async () => {
    const repo = repository();
    expect(await repo.status()).toEqual({ repository: false });
    await expect(repo.stage(["a.txt"])).rejects.toMatchObject({ code: "not_a_repository" });
    await expect(repo.commit("x")).rejects.toMatchObject({ code: "not_a_repository" });
    await repo.init();
    expect(await repo.status()).toMatchObject({
      repository: true,
      branch: "main",
      unborn: true,
      files: [{ path: "a.txt", staged: null, unstaged: "untracked" }],
    });
  });

  it("stages, unstages, refuses an empty message and commits, then shows it in git log", async () => {
    const repo = repository();
    await repo.init();
    await repo.stage(["a.txt"]);
    expect((await repo.status()).repository && (await repo.status())).toMatchObject({ files: [{ path: "a.txt", staged: "added", unstaged: null }] });
    await repo.unstage(["a.txt"]);
    expect(await repo.status()).toMatchObject({ files: [{ path: "a.txt", staged: null, unstaged: "untracked" }] });
    await repo.stage(["a.txt"]);
    await expect(repo.commit("   \n")).rejects.toMatchObject({ code: "empty_commit_message" });
    const committed = await repo.commit("Add a.txt\n\nWith a body.");
    expect(committed.summary).toBe("Add a.txt");
    expect(gitLog()).toBe("Add a.txt Cairn user\n");
    await expect(repo.commit("again")).rejects.toThrow(/Nothing is staged/);

    await writeFile(join(root, "a.txt"), "two\n");
    await repo.stage(["a.txt"]);
    await repo.unstage(["a.txt"]);
    expect(await repo.status()).toMatchObject({ unborn: false, files: [{ path: "a.txt", staged: null, unstaged: "modified" }] });
  });

  it("creates and switches branches, and refuses a name git rejects", async () => {
    const repo = repository();
    await repo.init();
    await repo.stage(["a.txt"]);
    await repo.commit("first");
    await repo.createBranch("feature/review");
    expect(await repo.status()).toMatchObject({ branch: "feature/review" });
    await expect(repo.createBranch("bad..name")).rejects.toMatchObject({ code: "invalid_branch_name" });
    await expect(repo.createBranch("-f")).rejects.toMatchObject({ code: "invalid_branch_name" });
    await repo.switchBranch("main");
    expect((await repo.branches()).map((branch) => `${branch.current ? "*" : " "}${branch.name}`)).toEqual([" feature/review", "*main"]);
  });

  it("refuses paths outside the workspace and does not use a repository above it", async () => {
    execFileSync("git", ["init", "-q"], { cwd: parent, env: { PATH: process.env.PATH ?? "", HOME: home } });
    const repo = repository();
    expect(await repo.status()).toEqual({ repository: false });
    await repo.init();
    await expect(repo.stage(["../outside.txt"])).rejects.toMatchObject({ code: "outside_workspace" });
    await expect(repo.stage(["/etc/passwd"])).rejects.toMatchObject({ code: "outside_workspace" });
  });

  it("pushes to a remote, setting the upstream the first time, and refuses without one", async () => {
    const repo = repository();
    await repo.init();
    await repo.stage(["a.txt"]);
    await repo.commit("first");
    await expect(repo.push()).rejects.toMatchObject({ code: "no_remote" });
    const remote = join(parent, "remote.git");
    execFileSync("git", ["init", "-q", "--bare", remote]);
    execFileSync("git", ["remote", "add", "origin", remote], { cwd: root });
    await repo.push();
    expect(await repo.status()).toMatchObject({ upstream: "origin/main", ahead: 0 });
    expect(execFileSync("git", ["--git-dir", remote, "log", "--format=%s", "main"]).toString()).toBe("first\n");
  });
});
