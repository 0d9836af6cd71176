import { execFileSync } from "node:child_process";
import { mkdir, mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { sharedGitSnapshots, takeGitSnapshot, type GitSnapshot } from "./git-snapshot.ts";

const snapshot = (branch: string): GitSnapshot => ({ branch, mainBranch: "main", status: "", recentCommits: "" });

describe("sharedGitSnapshots", () => {
  it("reuses a snapshot taken or being taken within maxAgeMs, and takes a new one after", async () => {
    let clock = 1_000;
    const taken: string[] = [];
    const shared = sharedGitSnapshots("/repo", {
      maxAgeMs: 2_000,
      now: () => clock,
      take: async (cwd) => {
        taken.push(cwd);
        return snapshot(`b${taken.length}`);
      },
    });
    const burst = await Promise.all([shared(), shared(), shared()]);
    expect(taken).toEqual(["/repo"]);
    expect(burst.map((found) => found?.branch)).toEqual(["b1", "b1", "b1"]);
    clock += 1_999;
    expect((await shared())?.branch).toBe("b1");
    clock += 1;
    expect((await shared())?.branch).toBe("b2");
    expect(taken).toHaveLength(2);
  });
});

describe("takeGitSnapshot", () => {
  it("gives the branch in a work tree (also from a directory below its root) and nothing outside one", async () => {
    const parent = await mkdtemp(join(tmpdir(), "cairn-git-snapshot-"));
    try {
      const repo = join(parent, "repo");
      await mkdir(join(repo, "src"), { recursive: true });
      execFileSync("git", ["init", "-q", "-b", "trunk", repo]);
      expect(await takeGitSnapshot(join(repo, "src"))).toMatchObject({ branch: "trunk" });
      const plain = join(parent, "plain");
      await mkdir(plain);
      expect(await takeGitSnapshot(plain)).toBeUndefined();
    } finally {
      await rm(parent, { recursive: true, force: true });
    }
  });
});
