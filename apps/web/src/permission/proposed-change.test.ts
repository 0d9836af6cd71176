import { describe, expect, it } from "vitest";
import { filePathOf, proposedChange } from "./proposed-change.ts";

describe("proposedChange", () => {
  it("shows the plan of ExitPlanMode, not its JSON", () => {
    expect(proposedChange("ExitPlanMode", { plan: "1. Fix <b>it</b>" }, undefined)).toEqual({ kind: "plan", plan: "1. Fix <b>it</b>" });
    expect(proposedChange("ExitPlanMode", { plan: 3 }, undefined).kind).toBe("input");
  });

  it("applies an Edit to the file's current content (first occurrence only)", () => {
    const change = proposedChange("Edit", { file_path: "/w/a.ts", old_string: "foo", new_string: "bar" }, "foo foo\n");
    expect(change).toEqual({ kind: "file", path: "/w/a.ts", original: "foo foo\n", modified: "bar foo\n", note: undefined });
  });

  it("replaces every occurrence with replace_all", () => {
    const change = proposedChange("Edit", { file_path: "/w/a.ts", old_string: "foo", new_string: "bar", replace_all: true }, "foo foo\n");
    expect(change).toMatchObject({ modified: "bar bar\n" });
  });

  it("says so when old_string is no longer in the file", () => {
    const change = proposedChange("Edit", { file_path: "/w/a.ts", old_string: "gone", new_string: "x" }, "other\n");
    expect(change).toMatchObject({ kind: "file", original: "gone", modified: "x" });
    expect(change.kind === "file" && change.note).toMatch(/not in the file/);
  });

  it("treats replacement text literally (no $ patterns)", () => {
    const change = proposedChange("Edit", { file_path: "/w/a.ts", old_string: "a", new_string: "$&$1" }, "a");
    expect(change).toMatchObject({ modified: "$&$1" });
  });

  it("shows a Write as old content vs new, or a new file", () => {
    expect(proposedChange("Write", { file_path: "/w/n.ts", content: "x" }, undefined)).toEqual({
      kind: "file",
      path: "/w/n.ts",
      original: "",
      modified: "x",
      note: "New file",
    });
    expect(proposedChange("Write", { file_path: "/w/n.ts", content: "x" }, "y")).toMatchObject({ original: "y", modified: "x", note: undefined });
  });

  it("shows Bash's exact command", () => {
    expect(proposedChange("Bash", { command: "rm -rf build && make", description: "rebuild" }, undefined)).toEqual({
      kind: "command",
      command: "rm -rf build && make",
      description: "rebuild",
    });
  });

  it("falls back to the raw input", () => {
    expect(proposedChange("WebFetch", { url: "http://x" }, undefined)).toEqual({ kind: "input", json: '{\n  "url": "http://x"\n}' });
  });

  it("names the file only for file-changing tools", () => {
    expect(filePathOf("Edit", { file_path: "/w/a" })).toBe("/w/a");
    expect(filePathOf("Read", { file_path: "/w/a" })).toBeUndefined();
  });
});
