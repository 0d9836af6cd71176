import { join } from "node:path";
import type { Workspace } from "@cairn/core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createLocalWorkspace } from "../local-workspace.ts";
import { makeFixture, type Fixture } from "../testing/fixture.ts";
import { writeSearchCorpus } from "../testing/search-corpus.ts";
import { findRipgrep } from "./ripgrep.ts";

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

const relative = (paths: readonly string[]) => paths.map((path) => path.slice(fixture.root.length + 1));

describe("glob: ripgrep and JavaScript agree", () => {
  it("ripgrep is installed, so both engines are really compared", async () => {
    expect(await findRipgrep(process.env.PATH ?? "")).toBeDefined();
  });

  const cases: Array<[string, { path?: string; limit?: number }]> = [
    ["*", {}],
    ["**/*", {}],
    ["*.ts", {}],
    ["**/*.ts", {}],
    ["src/**/*.ts", {}],
    ["src/*", {}],
    ["*.{js,ts,tsx}", {}],
    ["**/*.md", {}],
    [".hidden/*", {}],
    ["*.log", {}],
    ["build/**", {}],
    ["**/node_modules/**", {}],
    ["docs", {}],
    ["*.py", {}],
    ["unicode/*", {}],
    ["**/nested/*", {}],
    ["*.nomatch", {}],
    ["*.[jt]s", {}],
    ["src/?ie*.tsx", {}],
    ["**/.env*", {}],
    ["héllo*", {}],
    ["*.ts", { path: "src" }],
    ["*", { path: "scripts" }],
    ["**/*", { limit: 3 }],
  ];
  it.each(cases)("%s %o", async (pattern, options) => {
    const globOptions = { limit: options.limit ?? 1000, ...(options.path === undefined ? {} : { path: options.path }) };
    const fromRipgrep = await withRipgrep.glob(pattern, globOptions);
    const fromJavaScript = await withJavaScript.glob(pattern, globOptions);
    expect(fromJavaScript).toEqual(fromRipgrep);
  });
});

describe("glob semantics", () => {
  it("lists newest first, respects .gitignore, .ignore and negations, includes hidden files, skips .git and links", async () => {
    const result = await withRipgrep.glob("**/*", { limit: 1000 });
    expect(result.truncated).toBe(false);
    expect(relative(result.paths)).toEqual([
      "multi.txt",
      "crlf.txt",
      "name with spaces.py",
      "unicode/héllo wörld.txt",
      "columns.txt",
      "long.txt",
      "bin.dat",
      "sub/secret-root.txt",
      "scripts/run.sh",
      "scripts/.gitignore",
      "docs/guide.markdown",
      // readme.md shares keep.log's time: ties go by path
      "docs/readme.md",
      "keep.log",
      ".hidden/conf.yaml",
      "src/.env.example",
      "src/deep/data.json",
      "src/deep/nested/mod.ts",
      "src/view.tsx",
      "src/util.js",
      "src/app.ts",
      ".ignore",
      ".gitignore",
    ]);
    expect(result.paths.every((path) => path.startsWith(`${fixture.root}/`))).toBe(true);
  });

  it("matches a glob without a slash at any depth, and one with a slash from the search directory", async () => {
    expect(relative((await withRipgrep.glob("*.ts", { limit: 100 })).paths).sort()).toEqual(["src/app.ts", "src/deep/nested/mod.ts"]);
    expect(relative((await withRipgrep.glob("src/*.ts", { limit: 100 })).paths)).toEqual(["src/app.ts"]);
    expect(relative((await withRipgrep.glob("nested/*.ts", { limit: 100, path: "src/deep" })).paths)).toEqual(["src/deep/nested/mod.ts"]);
  });

  it("caps the list at the limit and says it did", async () => {
    const result = await withRipgrep.glob("**/*", { limit: 2 });
    expect(relative(result.paths)).toEqual(["multi.txt", "crlf.txt"]);
    expect(result.truncated).toBe(true);
  });

  it("accepts an absolute pattern inside the workspace", async () => {
    const result = await withRipgrep.glob(join(fixture.root, "src", "*.js"), { limit: 10 });
    expect(relative(result.paths)).toEqual(["src/util.js"]);
  });

  it("refuses search directories and patterns that leave the workspace", async () => {
    await expect(withRipgrep.glob("*", { path: "..", limit: 10 })).rejects.toMatchObject({ code: "outside_workspace" });
    await expect(withRipgrep.glob("../*", { limit: 10 })).rejects.toMatchObject({ code: "outside_workspace" });
    await expect(withRipgrep.glob(join(fixture.base, "*"), { limit: 10 })).rejects.toMatchObject({ code: "outside_workspace" });
    await expect(withRipgrep.glob("*", { path: "link-out-dir", limit: 10 })).rejects.toMatchObject({ code: "outside_workspace" });
  });
});
