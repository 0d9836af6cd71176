import { describe, expect, it } from "vitest";
import { sharedGitSnapshots, type GitSnapshot } from "./git-snapshot.ts";

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
