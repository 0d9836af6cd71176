import { describe, expect, it } from "vitest";
import { parseStatus } from "./git-status.ts";

describe("parseStatus", () => {
  it("reads the branch, upstream, staged, unstaged, renamed and untracked files", () => {
    const output = [
      "# branch.oid 1234567890abcdef1234567890abcdef12345678",
      "# branch.head feature/x",
      "# branch.upstream origin/feature/x",
      "# branch.ab +2 -1",
      "1 M. N... 100644 100644 100644 aaa bbb src/staged file.ts",
      "1 .M N... 100644 100644 100644 aaa bbb src/unstaged.ts",
      "2 R. N... 100644 100644 100644 aaa bbb R100 src/new.ts",
      "src/old.ts",
      "? notes.txt",
      "",
    ].join("\0");
    expect(parseStatus(output)).toEqual({
      branch: "feature/x",
      upstream: "origin/feature/x",
      ahead: 2,
      behind: 1,
      unborn: false,
      files: [
        { path: "notes.txt", staged: null, unstaged: "untracked" },
        { path: "src/new.ts", from: "src/old.ts", staged: "renamed", unstaged: null },
        { path: "src/staged file.ts", staged: "modified", unstaged: null },
        { path: "src/unstaged.ts", staged: null, unstaged: "modified" },
      ],
    });
  });

  it("knows an unborn branch and a detached head", () => {
    expect(parseStatus("# branch.oid (initial)\0# branch.head main\0")).toMatchObject({ branch: "main", unborn: true });
    expect(parseStatus("# branch.oid abc\0# branch.head (detached)\0")).toMatchObject({ branch: null, unborn: false });
  });
});
