import { describe, expect, it } from "vitest";
import { lineHunks, revertHunk } from "./line-hunks.ts";

const before = "one\ntwo\nthree\nfour\nfive\n";
const after = "one\nTWO\nthree\nfour\nfour and a half\nfive\nsix\n";

describe("line hunks", () => {
  it("finds each changed run with its line numbers on both sides", () => {
    expect(lineHunks(before, after)).toEqual([
      { index: 0, beforeStart: 2, beforeLines: ["two"], afterStart: 2, afterLines: ["TWO"] },
      { index: 1, beforeStart: 4, beforeLines: [], afterStart: 5, afterLines: ["four and a half"] },
      { index: 2, beforeStart: 5, beforeLines: [], afterStart: 7, afterLines: ["six"] },
    ]);
  });

  it("reverts one hunk and keeps the others", () => {
    expect(revertHunk(before, after, 0)).toBe("one\ntwo\nthree\nfour\nfour and a half\nfive\nsix\n");
    expect(revertHunk(before, after, 1)).toBe("one\nTWO\nthree\nfour\nfive\nsix\n");
    expect(revertHunk(before, after, 2)).toBe("one\nTWO\nthree\nfour\nfour and a half\nfive\n");
  });

  it("reverting every hunk gives the old text back, deletions and a missing final newline included", () => {
    const old = "a\nb\nc";
    const changed = "a\nc\nd";
    let text = changed;
    while (lineHunks(old, text).length > 0) text = revertHunk(old, text, 0);
    expect(text).toBe(old);
    expect(lineHunks("a\nb\nc\n", "a\nc\n")[0]).toMatchObject({ beforeStart: 2, beforeLines: ["b"], afterStart: 1, afterLines: [] });
  });

  it("refuses a hunk that does not exist", () => {
    expect(() => revertHunk(before, after, 3)).toThrow(RangeError);
  });
});
