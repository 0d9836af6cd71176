import { execFileSync } from "node:child_process";
import { mkdir, mkdtemp, realpath, rm, symlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createNodeMemoryFs } from "@cairn/core/node";
import { createLocalWorkspace, type WorkerWorkspace } from "@cairn/worker";
import { createWorkerMemoryFs } from "./worker-memory-fs.ts";
import { takeWorkerGitSnapshot } from "./worker-git-snapshot.ts";

/** The worker side is a real workspace (what a worker serves over the protocol); the rest is this node's disk. */
describe("memory files and the git snapshot of a workspace on a worker", () => {
  let parent: string;
  let root: string;
  let home: string;
  let workspace: WorkerWorkspace;

  beforeAll(async () => {
    parent = await realpath(await mkdtemp(join(tmpdir(), "cairn-worker-memory-")));
    root = join(parent, "workspace");
    home = join(parent, "home");
    await mkdir(join(root, ".claude", "skills", "deploy"), { recursive: true });
    await mkdir(join(home, ".claude"), { recursive: true });
    await writeFile(join(root, "CLAUDE.md"), "Use tabs.\n");
    await writeFile(join(root, ".claude", "skills", "deploy", "SKILL.md"), "---\nname: deploy\n---\nDeploy.\n");
    await symlink(join(root, ".claude", "skills", "deploy"), join(root, ".claude", "skills", "linked"));
    await writeFile(join(home, ".claude", "CLAUDE.md"), "User memory.\n");
    await writeFile(join(parent, "outside.md"), "not the workspace's\n");
    workspace = await createLocalWorkspace({ root, sandbox: { enabled: false } });
  });

  afterAll(async () => {
    await workspace?.dispose();
    await rm(parent, { recursive: true, force: true });
  });

  it("reads the workspace's paths through the workspace and every other path on this node", async () => {
    const reads: string[] = [];
    const counted = {
      ...workspace,
      root: workspace.root,
      stat: workspace.stat,
      list: workspace.list,
      readFile: (path: string) => (reads.push(path), workspace.readFile(path)),
    };
    const memory = createWorkerMemoryFs(counted, createNodeMemoryFs());
    expect(await memory.readText(join(root, "CLAUDE.md"))).toBe("Use tabs.\n");
    expect(await memory.readText(join(home, ".claude", "CLAUDE.md"))).toBe("User memory.\n");
    expect(reads).toEqual([join(root, "CLAUDE.md")]);
    expect(await memory.readText(join(root, "missing.md"))).toBeNull();
    expect(await memory.stat(join(root, ".claude"))).toMatchObject({ isDirectory: true });
    expect(await memory.stat(join(root, "nothing"))).toBeNull();
    expect((await memory.listDirectories(join(root, ".claude", "skills")))?.sort()).toEqual(["deploy", "linked"]);
    expect(await memory.listFiles(join(root, ".claude", "skills", "deploy"))).toEqual(["SKILL.md"]);
    expect(await memory.listFiles(join(root, "nothing"))).toBeNull();
    expect(await memory.realPath(join(root, ".claude", "skills", "linked"))).toBe(join(root, ".claude", "skills", "deploy"));
    const times = await memory.mtimes([join(root, "CLAUDE.md"), join(home, ".claude", "CLAUDE.md"), join(root, "gone.md")]);
    expect(times.map((time) => typeof time)).toEqual(["number", "number", "object"]);
    expect(times[2]).toBeNull();
    expect(memory.watch).toBeUndefined();
  });

  it("takes the git snapshot through the workspace's git: branch, main branch, short status, recent commits", async () => {
    expect(await takeWorkerGitSnapshot(workspace.git)).toBeUndefined();
    await workspace.git.init();
    await workspace.git.stage(["CLAUDE.md"]);
    await workspace.git.commit("Add the memory file");
    await writeFile(join(root, "CLAUDE.md"), "Use spaces.\n");
    await writeFile(join(root, "new.txt"), "new\n");
    await workspace.git.stage(["new.txt"]);
    execFileSync("git", ["-c", "user.name=t", "-c", "user.email=t@t", "mv", "new.txt", "renamed.txt"], { cwd: root });
    const snapshot = await takeWorkerGitSnapshot(workspace.git);
    expect(snapshot).toMatchObject({ branch: "main", mainBranch: "main" });
    expect(snapshot?.recentCommits).toMatch(/^[0-9a-f]{7,} Add the memory file$/);
    expect(snapshot?.status.split("\n")).toEqual(expect.arrayContaining([" M CLAUDE.md", "A  renamed.txt", "?? .claude/skills/deploy/SKILL.md"]));
  });
});
