import { mkdir, mkdtemp, realpath, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { buildFilesystemPolicy, writeDenialsNow } from "./policy.ts";

let base: string;
let root: string;

beforeEach(async () => {
  base = await realpath(await mkdtemp(join(tmpdir(), "cairn-policy-test-")));
  root = join(base, "ws");
  await mkdir(root);
});

afterEach(() => rm(base, { recursive: true, force: true }));

const policyFor = (serverHome = join(base, "home")) =>
  buildFilesystemPolicy({
    roots: [root],
    privateReadable: [],
    privateWritable: [join(base, "private")],
    serverHome,
    cairnHome: join(base, "cairn"),
    denyRead: [],
    runtimeReadable: [],
  });
const inRoot = (...names: string[]) => names.map((name) => join(root, name)).sort();
const denials = (serverHome?: string) => writeDenialsNow(policyFor(serverHome)).sort();

describe("writeDenialsNow", () => {
  it("in an empty workspace asks for no mount point but the .claude settings (whose hooks run on the host)", () => {
    expect(denials()).toEqual(inRoot(".claude/agents", ".claude/commands", ".claude/settings.json", ".claude/settings.local.json"));
  });

  it("denies protected files that exist as they are, and an absent one through the directory above it", async () => {
    await writeFile(join(root, ".bashrc"), "");
    await mkdir(join(root, ".vscode"));
    await mkdir(join(root, ".claude"));
    await writeFile(join(root, ".claude", "settings.json"), "{}");
    // .claude exists without commands/, agents/ or settings.local.json: .claude itself becomes read-only, nothing is made in it.
    expect(denials()).toEqual(inRoot(".bashrc", ".claude", ".claude/settings.json", ".vscode"));
  });

  it("denies a repository's hooks and config, a worktree's .git file, and all of .git when its hooks are missing", async () => {
    await mkdir(join(root, ".claude"));
    await mkdir(join(root, ".git", "hooks"), { recursive: true });
    await writeFile(join(root, ".git", "config"), "");
    expect(denials()).toEqual(inRoot(".claude", ".git/config", ".git/hooks"));
    await rm(join(root, ".git", "hooks"), { recursive: true });
    expect(denials()).toEqual(inRoot(".claude", ".git", ".git/config"));
    await rm(join(root, ".git"), { recursive: true });
    await writeFile(join(root, ".git"), "gitdir: /elsewhere\n");
    expect(denials()).toEqual(inRoot(".claude", ".git"));
  });

  it("keeps absent shell files uncreatable when the workspace is the server's home", async () => {
    await mkdir(join(root, ".claude"));
    expect(denials(root)).toEqual(inRoot(".claude", ".bash_profile", ".bashrc", ".gitconfig", ".profile", ".ripgreprc", ".zprofile", ".zshrc"));
  });

  it("lets a linked worktree's shell write its repository directory but not its hooks or config, and hides the main checkout", async () => {
    const main = join(base, "main");
    const repository = join(main, ".git");
    await mkdir(join(repository, "hooks"), { recursive: true });
    await writeFile(join(repository, "config"), "");
    await writeFile(join(root, ".git"), `gitdir: ${join(repository, "worktrees", "ws")}\n`);
    const policy = buildFilesystemPolicy({
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
    expect(writeDenialsNow(policy).sort()).toEqual(
      [
        join(repository, "config"),
        join(repository, "hooks"),
        ...inRoot(".claude/agents", ".claude/commands", ".claude/settings.json", ".claude/settings.local.json", ".git"),
      ].sort(),
    );
  });
});
