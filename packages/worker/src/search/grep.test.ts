import type { GrepQuery, Workspace } from "@cairn/core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createLocalWorkspace } from "../local-workspace.ts";
import { makeFixture, type Fixture } from "../testing/fixture.ts";
import { writeSearchCorpus } from "../testing/search-corpus.ts";

let fixture: Fixture;
let withRipgrep: Workspace;
let withJavaScript: Workspace;

beforeAll(async () => {
  fixture = await makeFixture();
  await writeSearchCorpus(fixture.root, fixture.canaryPath);
  withRipgrep = await createLocalWorkspace({ root: fixture.root, sandbox: { enabled: true } });
  withJavaScript = await createLocalWorkspace({ root: fixture.root, sandbox: { enabled: true }, forceJsSearch: true });
});

afterAll(async () => {
  await withRipgrep.dispose();
  await withJavaScript.dispose();
  await fixture.cleanup();
});

const short = (line: string) => line.replaceAll(`${fixture.root}/`, "");

const parityCases: GrepQuery[] = [
  { pattern: "needle", outputMode: "files_with_matches" },
  { pattern: "needle", outputMode: "content" },
  { pattern: "needle", outputMode: "count" },
  { pattern: "needle", outputMode: "content", caseInsensitive: true },
  { pattern: "needle", outputMode: "content", context: 1 },
  { pattern: "needle", outputMode: "content", after: 2 },
  { pattern: "needle", outputMode: "content", before: 1, after: 1 },
  { pattern: "needle", outputMode: "content", lineNumbers: false },
  { pattern: "needle", outputMode: "files_with_matches", glob: "*.ts" },
  { pattern: "needle", outputMode: "content", glob: "*.{ts,js}" },
  { pattern: "needle", outputMode: "content", glob: "*.ts,*.md" },
  { pattern: "needle", outputMode: "content", glob: "src/** !src/deep/**" },
  { pattern: "needle", outputMode: "files_with_matches", glob: "*" },
  { pattern: "needle", outputMode: "content", type: "ts" },
  { pattern: "needle", outputMode: "content", type: "md" },
  { pattern: "needle", outputMode: "files_with_matches", type: "py" },
  { pattern: "needle", outputMode: "files_with_matches", type: "sh" },
  { pattern: "needle", outputMode: "files_with_matches", type: "json" },
  { pattern: "needle", outputMode: "files_with_matches", type: "yaml" },
  { pattern: "needle", outputMode: "content", path: "src" },
  { pattern: "needle", outputMode: "content", path: "src/app.ts" },
  { pattern: "needle", outputMode: "count", path: "bin.dat" },
  { pattern: "needle", outputMode: "content", headLimit: 3 },
  { pattern: "needle start.*?needle end", outputMode: "content", multiline: true },
  { pattern: "needle\\s+second", outputMode: "count", multiline: true },
  { pattern: "^needle$", outputMode: "content", multiline: true },
  { pattern: "^\\w+ needle$", outputMode: "content" },
  { pattern: "n.edle|haystack", outputMode: "content", caseInsensitive: true },
  { pattern: "Grüße|ÉCOLE", outputMode: "content" },
  { pattern: "école", outputMode: "content", caseInsensitive: true },
  { pattern: "\\d{3}", outputMode: "content" },
  { pattern: "[[:upper:]]{6}", outputMode: "content" },
  { pattern: "\\(\\)", outputMode: "content" },
  { pattern: "-needle", outputMode: "files_with_matches" },
  { pattern: "needle\\r$", outputMode: "content" },
  { pattern: "needle.$", outputMode: "content" },
  { pattern: "needle$", outputMode: "content", multiline: true },
  { pattern: "(?i)NEEDLE [a-z]+$", outputMode: "content" },
  { pattern: "nothing-matches-this", outputMode: "content" },
];

describe("grep: ripgrep and JavaScript agree", () => {
  it.each(parityCases)("%o", async (query) => {
    const fromRipgrep = await withRipgrep.grep(query);
    const fromJavaScript = await withJavaScript.grep(query);
    expect(fromRipgrep.engine).toBe("ripgrep");
    expect(fromJavaScript.engine).toBe("javascript");
    expect({ ...fromJavaScript, engine: "ripgrep" }).toEqual(fromRipgrep);
  });

  it.each([
    { pattern: "(unclosed", outputMode: "content" },
    { pattern: "func() {", outputMode: "content" },
    { pattern: "a\\nb", outputMode: "content" },
    { pattern: "needle", outputMode: "content", type: "no-such-type" },
  ] satisfies GrepQuery[])("both refuse %o as invalid_pattern", async (query) => {
    await expect(withRipgrep.grep(query)).rejects.toMatchObject({ code: "invalid_pattern" });
    await expect(withJavaScript.grep(query)).rejects.toMatchObject({ code: "invalid_pattern" });
  });
});

describe("grep semantics", () => {
  it("content lists path:line:text by path, with context lines and -- between groups", async () => {
    const result = await withRipgrep.grep({ pattern: "needle", outputMode: "content", context: 1, path: "multi.txt" });
    expect(result.lines.map(short)).toEqual([
      "multi.txt-1-alpha",
      "multi.txt:2:needle start",
      "multi.txt-3-second line",
      "--",
      "multi.txt-6-gamma",
      "multi.txt:7:needle end",
    ]);
    expect(result).toMatchObject({ files: 1, matches: 2, truncated: false });
  });

  it("files_with_matches lists absolute paths, newest first, honouring ignore files and skipping binary files", async () => {
    const result = await withRipgrep.grep({ pattern: "needle", outputMode: "files_with_matches" });
    expect(result.lines.map(short)).toEqual([
      "multi.txt",
      "crlf.txt",
      "name with spaces.py",
      "unicode/héllo wörld.txt",
      "columns.txt",
      "long.txt",
      "sub/secret-root.txt",
      "scripts/run.sh",
      "docs/readme.md",
      "keep.log",
      ".hidden/conf.yaml",
      "src/deep/data.json",
      "src/deep/nested/mod.ts",
      "src/view.tsx",
      "src/app.ts",
    ]);
  });

  it("count gives path:count sorted by path, and the total", async () => {
    const result = await withRipgrep.grep({ pattern: "needle", outputMode: "count", path: "src" });
    expect(result.lines.map(short)).toEqual(["src/app.ts:3", "src/deep/data.json:1", "src/deep/nested/mod.ts:3", "src/view.tsx:1"]);
    expect(result.matches).toBe(8);
  });

  it("replaces lines longer than 500 bytes, as Claude Code's --max-columns 500 does", async () => {
    const result = await withRipgrep.grep({ pattern: "needle", outputMode: "content", path: "long.txt" });
    expect(result.lines.map(short)).toEqual(["long.txt:1:short needle line", "long.txt:2:[Omitted long matching line]"]);
    const edge = await withRipgrep.grep({ pattern: "needle", outputMode: "content", path: "columns.txt" });
    expect(edge.lines.map((line) => short(line).slice(0, 30))).toEqual([
      "columns.txt:1:nnnnnnnnnnnnnnnn",
      "columns.txt:2:[Omitted long ma",
      "columns.txt:3:nnnnnnnnnnnnnnnn",
    ]);
  });

  it("applies head_limit after sorting and reports truncation", async () => {
    const result = await withRipgrep.grep({ pattern: "needle", outputMode: "files_with_matches", headLimit: 2 });
    expect(result.lines.map(short)).toEqual(["multi.txt", "crlf.txt"]);
    expect(result).toMatchObject({ truncated: true, files: 15 });
  });

  it("never follows links out of the workspace nor shows what lies outside", async () => {
    const everything = await withRipgrep.grep({ pattern: "CANARY", outputMode: "content", glob: "*" });
    expect(everything.lines).toEqual([]);
    await expect(withRipgrep.grep({ pattern: "x", outputMode: "content", path: "link-out.txt" })).rejects.toMatchObject({ code: "outside_workspace" });
    await expect(withRipgrep.grep({ pattern: "x", outputMode: "content", path: fixture.base })).rejects.toMatchObject({ code: "outside_workspace" });
  });

  it("stops when aborted", async () => {
    const controller = new AbortController();
    controller.abort();
    await expect(withRipgrep.grep({ pattern: "needle", outputMode: "content" }, { signal: controller.signal })).rejects.toThrow();
    await expect(withJavaScript.grep({ pattern: "needle", outputMode: "content" }, { signal: controller.signal })).rejects.toThrow();
  });
});
