import { describe, expect, test } from "vitest";
import { compileHookMatcher } from "./matcher.ts";

describe("compileHookMatcher", () => {
  test.each<[string | undefined, string | undefined, boolean]>([
    [undefined, "Write", true],
    ["", "Bash", true],
    ["*", "anything", true],
    ["Write", "Write", true],
    ["Write", "NotebookWrite", false],
    ["Write", "Writer", false],
    ["Write|Edit", "Edit", true],
    ["Write|Edit", "MultiEdit", false],
    ["Notebook.*", "NotebookEdit", true],
    ["Notebook.*", "XNotebookEdit", false],
    ["mcp__memory__.*", "mcp__memory__create_entities", true],
    ["mcp__.*__write.*", "mcp__fs__write_file", true],
    ["startup|resume", "resume", true],
    ["Write", undefined, false],
  ])("%j against %j → %s", (matcher, value, expected) => {
    expect(compileHookMatcher(matcher).matches(value)).toBe(expected);
  });

  test("an invalid expression matches nothing and explains why", () => {
    const matcher = compileHookMatcher("Write(");
    expect(matcher.matches("Write(")).toBe(false);
    expect(matcher.error).toContain("invalid hook matcher");
  });
});
