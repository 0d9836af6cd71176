import { describe, expect, it } from "vitest";
import { editDiff } from "./edit-diff.ts";

describe("editDiff", () => {
  it("shows an Edit as the lines it removes and adds", () => {
    const diff = editDiff("Edit", { file_path: "/ws/a.ts", old_string: "one\ntwo\nthree\n", new_string: "one\n2\nthree\n" });
    expect(diff).toEqual({
      path: "/ws/a.ts",
      note: null,
      lines: [
        { type: "same", text: "one" },
        { type: "remove", text: "two" },
        { type: "add", text: "2" },
        { type: "same", text: "three" },
      ],
    });
  });

  it("shows a Write as all lines added and says the earlier content is unknown", () => {
    const diff = editDiff("Write", { file_path: "/ws/b.ts", content: "x\ny" });
    expect(diff?.lines).toEqual([
      { type: "add", text: "x" },
      { type: "add", text: "y" },
    ]);
    expect(diff?.note).toContain("not in the transcript");
  });

  it("has nothing for other tools or malformed input", () => {
    expect(editDiff("Bash", { command: "ls" })).toBeNull();
    expect(editDiff("Edit", "not an object")).toBeNull();
  });
});
