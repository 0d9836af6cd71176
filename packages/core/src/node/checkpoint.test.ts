import { existsSync } from "node:fs";
import { mkdir, mkdtemp, readFile, readdir, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { CheckpointError, createCheckpointStore } from "./checkpoint.ts";

let root: string;
let workspace: string;
let cairnHome: string;

beforeEach(async () => {
  root = await mkdtemp(join(tmpdir(), "cairn-checkpoint-"));
  workspace = join(root, "workspace");
  cairnHome = join(root, "home");
  await mkdir(join(workspace, "src", "lib"), { recursive: true });
  await writeFile(join(workspace, "src", "math.ts"), "export const divide = (a, b) => a / b;\n");
  await writeFile(join(workspace, "src", "lib", "util.ts"), "export const id = (x) => x;\n");
  await writeFile(join(workspace, ".gitignore"), "*.log\nbuild/\n");
  await writeFile(join(workspace, "debug.log"), "ignored v1\n");
  // The workspace's own repository, which checkpoints must never touch.
  await mkdir(join(workspace, ".git"));
  await writeFile(join(workspace, ".git", "HEAD"), "ref: refs/heads/main\n");
});
afterEach(async () => {
  await rm(root, { recursive: true, force: true });
});

const read = (path: string) => readFile(join(workspace, path), "utf8");

describe("checkpoints in a shadow git repository", () => {
  it("restores an edited file, a deleted file, and removes a file created after the checkpoint", async () => {
    const store = createCheckpointStore({ cairnHome, workspaceRoot: workspace });
    const checkpoint = await store.snapshot("turn 1");
    expect(checkpoint).toMatch(/^[0-9a-f]{40}$/);

    await writeFile(join(workspace, "src", "math.ts"), "export const divide = (a, b) => (b === 0 ? NaN : a / b);\n");
    await rm(join(workspace, "src", "lib", "util.ts"));
    await mkdir(join(workspace, "src", "fresh"), { recursive: true });
    await writeFile(join(workspace, "src", "fresh", "new.ts"), "export {};\n");
    await writeFile(join(workspace, "debug.log"), "ignored v2\n");
    const later = await store.snapshot("turn 2");

    const result = await store.restoreFiles(checkpoint);
    expect(result).toEqual({ restored: checkpoint, backup: later });
    expect(await read("src/math.ts")).toBe("export const divide = (a, b) => a / b;\n");
    expect(await read("src/lib/util.ts")).toBe("export const id = (x) => x;\n");
    expect(existsSync(join(workspace, "src", "fresh", "new.ts"))).toBe(false);
    expect(existsSync(join(workspace, "src", "fresh"))).toBe(false);
    // Ignored files are not the checkpoint's business, and the workspace's own .git is untouched.
    expect(await read("debug.log")).toBe("ignored v2\n");
    expect(await readdir(join(workspace, ".git"))).toEqual(["HEAD"]);

    // The restore is undoable: the backup checkpoint brings the later state back.
    await store.restoreFiles(result.backup);
    expect(await read("src/fresh/new.ts")).toBe("export {};\n");
    expect(existsSync(join(workspace, "src", "lib", "util.ts"))).toBe(false);
  });

  it("does not make a new commit when nothing changed, and lists checkpoints newest first", async () => {
    const store = createCheckpointStore({ cairnHome, workspaceRoot: workspace });
    const first = await store.snapshot("first");
    expect(await store.snapshot("nothing changed")).toBe(first);
    await writeFile(join(workspace, "src", "math.ts"), "changed\n");
    const second = await store.snapshot("second");
    const listed = await store.listCheckpoints();
    expect(listed.map((checkpoint) => [checkpoint.commit, checkpoint.label])).toEqual([
      [second, "second"],
      [first, "first"],
    ]);
    expect(listed[0]!.timestamp).toMatch(/^\d{4}-\d\d-\d\dT/);
  });

  it("keeps the shadow repository outside the workspace and its index between stores", async () => {
    const store = createCheckpointStore({ cairnHome, workspaceRoot: workspace });
    await store.snapshot("one");
    expect(store.gitDir.startsWith(join(cairnHome, "checkpoints"))).toBe(true);
    expect(existsSync(join(store.gitDir, "index"))).toBe(true);
    const reopened = createCheckpointStore({ cairnHome, workspaceRoot: workspace });
    expect(await reopened.listCheckpoints()).toHaveLength(1);
    await writeFile(join(workspace, "added.ts"), "x\n");
    await reopened.snapshot("two");
    expect(await reopened.listCheckpoints()).toHaveLength(2);
  });

  it("refuses an unknown checkpoint without touching the files", async () => {
    const store = createCheckpointStore({ cairnHome, workspaceRoot: workspace });
    await store.snapshot("one");
    await writeFile(join(workspace, "src", "math.ts"), "edited\n");
    await expect(store.restoreFiles("0".repeat(40))).rejects.toMatchObject({ code: "unknown-checkpoint" });
    expect(await read("src/math.ts")).toBe("edited\n");
  });

  it("stops when aborted and reports a missing git binary by code", async () => {
    const store = createCheckpointStore({ cairnHome, workspaceRoot: workspace });
    await expect(store.snapshot("x", { signal: AbortSignal.abort() })).rejects.toMatchObject({ code: "aborted" });
    const broken = createCheckpointStore({ cairnHome, workspaceRoot: workspace, gitBinary: "/nonexistent/git" });
    await expect(broken.snapshot("x")).rejects.toBeInstanceOf(CheckpointError);
    await expect(broken.snapshot("x")).rejects.toMatchObject({ code: "git-missing" });
  });
});

describe("changes since a checkpoint", () => {
  it("lists added, modified and deleted files (Bash changes too) without recording a checkpoint, and reads a file as it was", async () => {
    const store = createCheckpointStore({ cairnHome, workspaceRoot: workspace });
    const base = await store.snapshot("turn 1");
    await writeFile(join(workspace, "src", "math.ts"), "export const divide = (a, b) => b && a / b;\n");
    await rm(join(workspace, "src", "lib", "util.ts"));
    await writeFile(join(workspace, "src", "new file.ts"), "export {};\n");
    await writeFile(join(workspace, "debug.log"), "ignored v2\n");

    const changed = await store.changedSince(base);
    expect(changed.sort((left, right) => left.path.localeCompare(right.path))).toEqual([
      { path: "src/lib/util.ts", status: "deleted" },
      { path: "src/math.ts", status: "modified" },
      { path: "src/new file.ts", status: "added" },
    ]);
    expect((await store.listCheckpoints()).map((checkpoint) => checkpoint.commit)).toEqual([base]);
    expect(new TextDecoder().decode((await store.readFileAt(base, "src/math.ts")) ?? new Uint8Array())).toBe("export const divide = (a, b) => a / b;\n");
    expect(await store.readFileAt(base, "src/new file.ts")).toBeNull();
  });

  it("refuses an unknown checkpoint", async () => {
    const store = createCheckpointStore({ cairnHome, workspaceRoot: workspace });
    await store.snapshot("turn 1");
    await expect(store.changedSince("0".repeat(40))).rejects.toMatchObject({ code: "unknown-checkpoint" });
  });
});
