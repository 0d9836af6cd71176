import { execFileSync } from "node:child_process";
import { existsSync } from "node:fs";
import { mkdir, mkdtemp, realpath, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { Runtime } from "../runtime/runtime-types.ts";
import { WorktreeSessions } from "./worktree-sessions.ts";

let parent: string;
let root: string;
let cairnHome: string;

beforeEach(async () => {
  parent = await realpath(await mkdtemp(join(tmpdir(), "cairn-worktree-sessions-")));
  root = join(parent, "ws");
  cairnHome = join(parent, "home");
  await mkdir(root);
  await writeFile(join(root, "a.txt"), "one\n");
  const git = (args: string[]) => execFileSync("git", ["-c", "user.name=T", "-c", "user.email=t@t", ...args], { cwd: root });
  git(["init", "-q", "--initial-branch=main"]);
  git(["add", "a.txt"]);
  git(["commit", "-qm", "first"]);
});
afterEach(() => rm(parent, { recursive: true, force: true }));

/** A stand-in runtime that records where it was rooted and whether it was closed. */
function fakeRuntimes() {
  const made: Array<{ root: string; repository: string; closed: boolean }> = [];
  const createRuntime = async (runtimeRoot: string, repository: string): Promise<Runtime> => {
    const entry = { root: runtimeRoot, repository, closed: false };
    made.push(entry);
    return {
      workspaceRoot: runtimeRoot,
      close: async () => {
        entry.closed = true;
      },
    } as Runtime;
  };
  return { made, createRuntime };
}

describe("WorktreeSessions", () => {
  it("remembers a session's worktree across instances (a restart) and starts its runtime there once", async () => {
    const first = fakeRuntimes();
    const sessions = new WorktreeSessions({ workspaceRoot: root, cairnHome, createRuntime: first.createRuntime });
    const { record } = await sessions.create("s-1");
    expect(record).toMatchObject({ sessionId: "s-1", branch: "cairn/s-1", base: "main", repository: join(root, ".git") });
    expect(first.made).toEqual([{ root: record.path, repository: join(root, ".git"), closed: false }]);
    await sessions.close();
    expect(first.made[0]?.closed).toBe(true);

    const second = fakeRuntimes();
    const restarted = new WorktreeSessions({ workspaceRoot: root, cairnHome, createRuntime: second.createRuntime });
    expect(await restarted.runtime("unknown")).toBeUndefined();
    const [runtime, again] = await Promise.all([restarted.runtime("s-1"), restarted.runtime("s-1")]);
    expect(runtime).toBe(again);
    expect(runtime?.workspaceRoot).toBe(record.path);
    expect(second.made).toHaveLength(1);

    const discarded = await restarted.discard("s-1");
    expect(discarded.discardedAt).toBeDefined();
    expect(second.made[0]?.closed).toBe(true);
    expect(existsSync(record.path)).toBe(false);
    expect(await restarted.runtime("s-1")).toBeUndefined();
    await expect(restarted.merge("s-1")).rejects.toMatchObject({ code: "worktree_not_found" });
    await expect(restarted.merge("main-session")).rejects.toMatchObject({
      code: "worktree_not_found",
      message: expect.stringContaining("does not run in a worktree"),
    });
  });

  it("says so when the list of worktree sessions is damaged, instead of running them in the main checkout", async () => {
    const directory = join(cairnHome, "worktrees", root.replace(/[^A-Za-z0-9]/g, "-"));
    await mkdir(directory, { recursive: true });
    await writeFile(join(directory, "sessions.json"), "{ not json");
    const sessions = new WorktreeSessions({ workspaceRoot: root, cairnHome, createRuntime: fakeRuntimes().createRuntime });
    await expect(sessions.runtime("s-1")).rejects.toMatchObject({ code: "git_failed", message: expect.stringContaining("cannot be read") });
  });

  it("refuses a workspace that is not a repository with the git init hint, and makes nothing", async () => {
    await rm(join(root, ".git"), { recursive: true });
    const runtimes = fakeRuntimes();
    const sessions = new WorktreeSessions({ workspaceRoot: root, cairnHome, createRuntime: runtimes.createRuntime });
    await expect(sessions.create("s-1")).rejects.toMatchObject({ code: "not_a_repository", message: expect.stringContaining("Run git init") });
    expect(runtimes.made).toEqual([]);
    expect(await sessions.all()).toEqual([]);
  });
});
