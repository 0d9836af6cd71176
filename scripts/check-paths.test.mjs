import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { findOutsidePaths } from "./check-paths.mjs";

const root = "/srv/worktrees/cairn";
const existing = new Set(["/srv/elsewhere", "/srv/worktrees", "/home/dev"]);
const exists = (path) => existing.has(path);
const check = (text, file = "packages/core/src/a.test.ts") => findOutsidePaths({ root, file, text, exists }).map((finding) => finding.path);

describe("check-paths", () => {
  it("flags absolute paths into folders that exist outside the repository, and into the checkout itself", () => {
    assert.deepEqual(check('const fixture = "/srv/elsewhere/fixtures/claude-code/explore-edit.jsonl";'), [
      "/srv/elsewhere/fixtures/claude-code/explore-edit.jsonl",
    ]);
    assert.deepEqual(check("see /home/dev/notes/a.md"), ["/home/dev/notes/a.md"]);
    assert.deepEqual(check('readFile("/srv/worktrees/cairn/README.md")'), ["/srv/worktrees/cairn/README.md"]);
  });

  it("flags ../shared and relative paths that climb out of the repository", () => {
    assert.deepEqual(check('copy("../shared")'), ["../shared"]);
    assert.deepEqual(check('read("../../../../../shared/x.jsonl")'), ["../../../../../shared/x.jsonl"]);
    assert.deepEqual(check('read("../../../../work/other/x")'), ["../../../../work/other/x"]);
  });

  it("passes made-up data paths, system paths, escape probes, URLs and paths inside the repository", () => {
    assert.deepEqual(check('cwd: "/work/demo", file: "/home/user/x", bin: "/usr/bin/chromium", etc: "/etc/passwd"'), []);
    assert.deepEqual(check('probe("../../../../../../etc/passwd"); url("https://example.com/srv/elsewhere/x")'), []);
    assert.deepEqual(check('new URL("../../../core/src/node/__fixtures__/x.jsonl", import.meta.url); "../shared-lib"'), []);
  });

  it("reports the line of each finding", () => {
    assert.deepEqual(findOutsidePaths({ root, file: "README.md", text: "ok\n/srv/elsewhere/x\n", exists }), [
      { line: 2, path: "/srv/elsewhere/x", reason: "absolute path to a folder outside the repository" },
    ]);
  });
});
