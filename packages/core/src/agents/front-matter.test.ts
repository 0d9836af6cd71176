import { describe, expect, it } from "vitest";
import { frontMatterList, frontMatterText, parseFrontMatter } from "./front-matter.ts";

describe("parseFrontMatter", () => {
  it("keeps the indentation inside | blocks and folds > blocks", async () => {
    const parsed = await parseFrontMatter("---\nnotes: |\n  line one\n    indented\n  line three\nsummary: >\n  folded\n  text\n---\nbody\n");
    expect(parsed).toEqual({ kind: "parsed", data: { notes: "line one\n  indented\nline three\n", summary: "folded text\n" }, body: "body\n" });
  });

  it("keeps commas inside quoted list items and drops trailing comments", async () => {
    const parsed = await parseFrontMatter('---\ntools: [Read, "Bash(git add, git commit)"]\nmodel: sonnet # the fast one\n---\n');
    expect(parsed).toEqual({ kind: "parsed", data: { tools: ["Read", "Bash(git add, git commit)"], model: "sonnet" }, body: "" });
  });

  it("reads CRLF files with a byte-order mark, and an empty front matter as an empty mapping", async () => {
    expect(await parseFrontMatter("\uFEFF---\r\nname: a\r\n---\r\nbody")).toEqual({ kind: "parsed", data: { name: "a" }, body: "body" });
    expect(await parseFrontMatter("---\n---\nbody")).toEqual({ kind: "parsed", data: {}, body: "body" });
  });

  it("reads an unquoted value that contains ': ' as text, as Claude Code's agent files write descriptions", async () => {
    const parsed = await parseFrontMatter("---\nname: reviewer\ndescription: Use this agent when: the code changed. Example: a PR\n---\n");
    expect(parsed).toMatchObject({ kind: "parsed", data: { description: "Use this agent when: the code changed. Example: a PR" } });
  });

  it("says none without a leading fence and invalid for malformed YAML or a non-mapping", async () => {
    expect(await parseFrontMatter("# Title\n---\nname: a\n---\n")).toEqual({ kind: "none" });
    expect(await parseFrontMatter("---\nname: x---\nstill open")).toEqual({ kind: "none" });
    expect(await parseFrontMatter("---\nname: [a\n---\n")).toMatchObject({ kind: "invalid", message: expect.any(String) });
    expect(await parseFrontMatter("---\n- a\n- b\n---\n")).toEqual({ kind: "invalid", message: "the front matter must be a mapping of keys to values" });
  });
});

describe("front matter fields", () => {
  const data = { name: 42, flag: true, list: ["a", " b "], comma: "Read, Bash(git diff:*, git log), Grep", nested: { a: 1 }, empty: null };

  it("reads scalars as text and nothing else", () => {
    expect(frontMatterText(data, "name")).toBe("42");
    expect(frontMatterText(data, "flag")).toBe("true");
    expect(frontMatterText(data, "list")).toBeUndefined();
    expect(frontMatterText(data, "nested")).toBeUndefined();
    expect(frontMatterText(data, "missing")).toBeUndefined();
  });

  it("reads YAML lists and comma lists, never splitting inside parentheses", () => {
    expect(frontMatterList(data, "list")).toEqual(["a", "b"]);
    expect(frontMatterList(data, "comma")).toEqual(["Read", "Bash(git diff:*, git log)", "Grep"]);
    expect(frontMatterList(data, "empty")).toBeUndefined();
    expect(frontMatterList(data, "missing")).toBeUndefined();
  });
});
