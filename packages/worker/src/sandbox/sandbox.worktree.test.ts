import { execFileSync } from "node:child_process";
import { mkdir, readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import type { Workspace } from "@cairn/core";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createWorkspaceWorktrees } from "../git/git-worktrees.ts";
import { createLocalWorkspace } from "../local-workspace.ts";
import { execOptions, makeFixture, type Fixture } from "../testing/fixture.ts";

let fixture: Fixture;
let home: string;
const opened: Workspace[] = [];

beforeEach(async () => {
  fixture = await makeFixture();
  home = join(fixture.base, "home");
  await mkdir(home);
  await writeFile(join(fixture.root, "a.txt"), "one\n");
  const git = (args: string[]) =>
    execFileSync("git", ["-c", "user.name=T", "-c", "user.email=t@t", ...args], {
      cwd: fixture.root,
      env: { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: home },
    });
  git(["init", "-q", "--initial-branch=main"]);
  git(["add", "a.txt"]);
  git(["commit", "-qm", "first"]);
});

afterEach(async () => {
  await Promise.all(opened.splice(0).map((workspace) => workspace.dispose()));
  await fixture.cleanup();
});

const hostEnv = () => ({
  path: process.env.PATH ?? "/usr/bin:/bin",
  lang: "C.UTF-8",
  term: "dumb",
  home,
  cairnHome: join(fixture.base, "cairn"),
  tmpDir: fixture.base,
});

describe("a sandboxed shell in a linked worktree", () => {
  it("runs git there (status, commit) while the repository's hooks and config and the main checkout stay out of reach", async () => {
    const worktrees = createWorkspaceWorktrees(fixture.root, join(fixture.base, "worktrees"), hostEnv());
    const worktree = await worktrees.add("s1");
    const repository = await worktrees.repositoryDirectory();
    const workspace = await createLocalWorkspace({
      root: worktree.path,
      sandbox: { enabled: true },
      gitDirectories: [repository],
      cairnHome: join(fixture.base, "cairn"),
    });
    opened.push(workspace);
    const run = async (command: string) => (await workspace.exec(command, execOptions({ timeoutMs: 30_000 }))).stdout;

    const committed = await run(
      [
        "echo two >> a.txt",
        "git -c user.name=Agent -c user.email=agent@example.com commit -qam 'from the sandbox'; echo commit=$?",
        "git log --format=%s -1",
        "git status --porcelain; echo status=$?",
        `echo x > ${join(repository, "hooks", "pre-commit")}; echo hook=$?`,
        `echo '[core]' >> ${join(repository, "config")}; echo config=$?`,
        `cat ${join(fixture.root, "a.txt")}; echo main=$?`,
      ].join("\n"),
    );
    expect(committed).toContain("commit=0");
    expect(committed).toContain("from the sandbox");
    expect(committed).toContain("status=0");
    expect(committed).not.toMatch(/hook=0\b/);
    expect(committed).not.toMatch(/config=0\b/);
    expect(committed).not.toMatch(/main=0\b/);
    // The commit is on the session's branch in the shared repository; the main checkout is untouched.
    expect(execFileSync("git", ["log", "--format=%s", "-1", "cairn/s1"], { cwd: fixture.root }).toString()).toBe("from the sandbox\n");
    expect(await readFile(join(fixture.root, "a.txt"), "utf8")).toBe("one\n");
    expect(await readFile(join(repository, "config"), "utf8")).not.toContain("[core]\n[core]");
  });
});
