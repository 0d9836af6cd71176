import { mkdir, mkdtemp, realpath, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { buildFilesystemPolicy, placeholdersNeeded, writeDenialsNow } from "./policy.ts";

let base: string;
let root: string;

beforeEach(async () => {
  base = await realpath(await mkdtemp(join(tmpdir(), "cairn-policy-test-")));
  root = join(base, "ws");
  await mkdir(root);
});

afterEach(() => rm(base, { recursive: true, force: true }));

const policyFor = (protectMissing = true) =>
  buildFilesystemPolicy({
    protectMissing,
    roots: [root],
    privateReadable: [],
    privateWritable: [join(base, "private")],
    serverHome: join(base, "home"),
    cairnHome: join(base, "cairn"),
    denyRead: [],
    runtimeReadable: [],
  });
const inRoot = (...names: string[]) => names.map((name) => join(root, name)).sort();
const denials = () => writeDenialsNow(policyFor()).sort();
const placeholders = () => placeholdersNeeded(policyFor()).sort();
/** What WorkspacePlaceholders does before a shell starts: an empty directory for each absent name. */
const makePlaceholders = async () => {
  for (const path of placeholders()) await mkdir(path).catch(() => undefined);
};
const rootNames = [
  ".bash_profile",
  ".bashrc",
  ".claude",
  ".gitconfig",
  ".gitmodules",
  ".idea",
  ".mcp.json",
  ".profile",
  ".ripgreprc",
  ".vscode",
  ".zprofile",
  ".zshrc",
];

describe("placeholdersNeeded", () => {
  it("in an empty workspace asks for every protected name in the root (.claude once for its settings), not for .git", () => {
    expect(placeholders()).toEqual(inRoot(...rootNames));
  });

  it("holds present names too (one may be another shell's placeholder), never a name inside a directory", async () => {
    await writeFile(join(root, ".bashrc"), "");
    await mkdir(join(root, ".claude"));
    expect(placeholders()).toEqual(inRoot(...rootNames));
  });
});

describe("without protectMissing (the default)", () => {
  it("stands in .claude only, and leaves the other absent names in a root out of the denials instead of refusing to start", async () => {
    expect(placeholdersNeeded(policyFor(false))).toEqual(inRoot(".claude"));
    expect(() => writeDenialsNow(policyFor(false))).toThrow(/could not protect .*\.claude/);
    await mkdir(join(root, ".claude"));
    await writeFile(join(root, ".bashrc"), "");
    const denied = writeDenialsNow(policyFor(false));
    expect(denied).toEqual(expect.arrayContaining(inRoot(".bashrc", ".claude")));
    expect(denied).not.toContain(join(root, ".mcp.json"));
    expect(denied).not.toContain(join(root, ".vscode"));
  });
});

describe("writeDenialsNow", () => {
  it("refuses to go on while a protected name in a root is absent (its placeholder is missing)", () => {
    expect(() => writeDenialsNow(policyFor())).toThrow(/could not protect/);
    // Seatbelt denies by name: no placeholder needed.
    expect(writeDenialsNow(policyFor(), false)).toEqual(expect.arrayContaining(inRoot(".bashrc", ".claude/settings.json")));
  });

  it("with the placeholders there, denies each of them, and .claude once for all its settings", async () => {
    await makePlaceholders();
    expect(denials()).toEqual(inRoot(...rootNames));
  });

  it("denies protected files that exist as they are, and an absent one through the directory above it", async () => {
    await writeFile(join(root, ".bashrc"), "");
    await mkdir(join(root, ".vscode"));
    await mkdir(join(root, ".claude"));
    await writeFile(join(root, ".claude", "settings.json"), "{}");
    await makePlaceholders();
    // .claude exists without commands/, agents/ or settings.local.json: .claude itself becomes read-only, nothing is made in it.
    expect(denials()).toEqual(inRoot(...rootNames, ".claude/settings.json"));
  });

  it("denies a repository's hooks and config, a worktree's .git file, and all of .git when its hooks are missing", async () => {
    await makePlaceholders();
    const others = rootNames;
    await mkdir(join(root, ".git", "hooks"), { recursive: true });
    await writeFile(join(root, ".git", "config"), "");
    expect(denials()).toEqual(inRoot(...others, ".git/config", ".git/hooks"));
    await rm(join(root, ".git", "hooks"), { recursive: true });
    expect(denials()).toEqual(inRoot(...others, ".git", ".git/config"));
    await rm(join(root, ".git"), { recursive: true });
    await writeFile(join(root, ".git"), "gitdir: /elsewhere\n");
    expect(denials()).toEqual(inRoot(...others, ".git"));
  });

  it("lets a linked worktree's shell write its repository directory but not its hooks or config, and hides the main checkout", async () => {
    const main = join(base, "main");
    const repository = join(main, ".git");
    await mkdir(join(repository, "hooks"), { recursive: true });
    await writeFile(join(repository, "config"), "");
    await writeFile(join(root, ".git"), `gitdir: ${join(repository, "worktrees", "ws")}\n`);
    const policy = buildFilesystemPolicy({
      protectMissing: true,
      roots: [root],
      privateReadable: [],
      privateWritable: [],
      serverHome: join(base, "home"),
      cairnHome: join(base, "cairn"),
      denyRead: [],
      runtimeReadable: [],
      gitDirectories: [repository],
    });
    expect(policy.allowWrite).toEqual([root, repository]);
    expect(policy.allowRead).toContain(repository);
    expect(policy.denyRead).toContain(main);
    expect(placeholdersNeeded(policy).sort()).toEqual([join(repository, "config"), join(repository, "hooks"), ...inRoot(...rootNames)].sort());
    for (const path of placeholdersNeeded(policy)) await mkdir(path).catch(() => undefined);
    expect(writeDenialsNow(policy).sort()).toEqual([join(repository, "config"), join(repository, "hooks"), ...inRoot(...rootNames, ".git")].sort());
  });
});
