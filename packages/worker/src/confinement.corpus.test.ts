import { mkdir, readFile, symlink, writeFile } from "node:fs/promises";
import { homedir, tmpdir } from "node:os";
import { join } from "node:path";
import type { Workspace } from "@cairn/core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { execOptions, makeFixture, openWorkspace, type Fixture } from "./testing/fixture.ts";

type Hostile = { name: string; path: (fixture: Fixture) => string; code: "outside_workspace" | "invalid_path" };

const hostilePaths: Hostile[] = [
  { name: "parent traversal", path: () => "../canary.txt", code: "outside_workspace" },
  { name: "deep traversal to /etc", path: () => "../../../../../../etc/passwd", code: "outside_workspace" },
  { name: "traversal through a subdirectory", path: () => "src/../../canary.txt", code: "outside_workspace" },
  { name: "dot segments", path: () => "./src/./../../canary.txt", code: "outside_workspace" },
  { name: "absolute canary", path: (f) => f.canaryPath, code: "outside_workspace" },
  { name: "absolute traversal from the root", path: (f) => `${f.root}/../canary.txt`, code: "outside_workspace" },
  { name: "/etc/passwd", path: () => "/etc/passwd", code: "outside_workspace" },
  { name: "doubled slashes", path: () => "//etc//passwd", code: "outside_workspace" },
  { name: "filesystem root", path: () => "/", code: "outside_workspace" },
  { name: "the directory holding the workspace", path: (f) => f.base, code: "outside_workspace" },
  { name: "sibling sharing the root's name as prefix", path: (f) => `${f.root}-evil/secret.txt`, code: "outside_workspace" },
  { name: "server home", path: () => join(homedir(), ".bashrc"), code: "outside_workspace" },
  { name: "temp dir", path: () => tmpdir(), code: "outside_workspace" },
  { name: "/proc/self/root", path: (f) => `/proc/self/root${f.canaryPath}`, code: "outside_workspace" },
  { name: "/proc/self/environ", path: () => "/proc/self/environ", code: "outside_workspace" },
  { name: "/proc/self/cwd", path: () => "/proc/self/cwd/package.json", code: "outside_workspace" },
  { name: "/dev/zero", path: () => "/dev/zero", code: "outside_workspace" },
  { name: "link to the canary", path: () => "link-out", code: "outside_workspace" },
  { name: "link to an outside directory", path: () => "link-out-dir/secret.txt", code: "outside_workspace" },
  { name: "relative link climbing out", path: () => "src/link-up/secret.txt", code: "outside_workspace" },
  { name: "link to ..", path: () => "link-parent/canary.txt", code: "outside_workspace" },
  { name: "link to /", path: () => "link-root/etc/passwd", code: "outside_workspace" },
  { name: "chain of links ending outside", path: () => "link-chain", code: "outside_workspace" },
  { name: "dangling link to a file outside", path: () => "dangling-out", code: "outside_workspace" },
  { name: "dangling link to a directory outside", path: () => "dangling-out-dir/new.txt", code: "outside_workspace" },
  { name: "link to the prefix-sharing sibling", path: () => "link-evil/secret.txt", code: "outside_workspace" },
  { name: "symbolic link loop", path: () => "loop-a", code: "invalid_path" },
  { name: "NUL byte", path: () => "inside.txt\0../../canary.txt", code: "invalid_path" },
  { name: "empty path", path: () => "", code: "invalid_path" },
  { name: "over-long name", path: () => "n".repeat(300), code: "invalid_path" },
  { name: "over-long path", path: () => "d/".repeat(2100), code: "invalid_path" },
  { name: "lone surrogate", path: () => "bad\uDC00name", code: "invalid_path" },
];

let fixture: Fixture;
let workspace: Workspace;
let before: string;
const seen: string[] = [];

beforeAll(async () => {
  fixture = await makeFixture();
  const { root, base, outside, canaryPath } = fixture;
  await mkdir(join(root, "src"));
  await writeFile(join(root, "inside.txt"), "inside\n");
  await mkdir(`${root}-evil`);
  await writeFile(`${root}-evil/secret.txt`, `${fixture.canary} sibling\n`);
  await symlink(canaryPath, join(root, "link-out"));
  await symlink(outside, join(root, "link-out-dir"));
  await symlink("../../outside", join(root, "src", "link-up"));
  await symlink("..", join(root, "link-parent"));
  await symlink("/", join(root, "link-root"));
  await symlink("link-out", join(root, "link-chain"));
  await symlink(join(base, "not-yet.txt"), join(root, "dangling-out"));
  await symlink(join(base, "not-yet-dir"), join(root, "dangling-out-dir"));
  await symlink(`${root}-evil`, join(root, "link-evil"));
  await symlink("loop-b", join(root, "loop-a"));
  await symlink("loop-a", join(root, "loop-b"));
  before = await fixture.snapshotOutside();
  workspace = await openWorkspace(fixture);
});

afterAll(async () => {
  await workspace.dispose();
  await fixture.cleanup();
});

const operations: Array<[string, (path: string) => Promise<unknown>]> = [
  ["resolve", (path) => workspace.resolve(path)],
  ["stat", (path) => workspace.stat(path)],
  ["readFile", (path) => workspace.readFile(path)],
  ["writeFile", (path) => workspace.writeFile(path, "pwned\n")],
  ["list", (path) => workspace.list(path)],
  ["mkdir", (path) => workspace.mkdir(path)],
  ["remove", (path) => workspace.remove(path)],
  ["rename from", (path) => workspace.rename(path, "moved-here")],
  ["rename to", (path) => workspace.rename("inside.txt", path)],
  ["glob", (path) => workspace.glob("**/*", { path, limit: 100 })],
  ["grep", (path) => workspace.grep({ pattern: "CANARY", path, outputMode: "content" })],
];

/** Shell commands that read the canary outside the workspace; each must show it when nothing confines the shell. */
const readProbes = () => [
  "cat ../canary.txt",
  `cat ${fixture.canaryPath}`,
  "cat link-out link-chain link-out-dir/secret.txt link-parent/canary.txt",
  `cat /proc/self/root${fixture.canaryPath}`,
  `grep -r CANARY ${fixture.base} 2>/dev/null`,
  `find ${fixture.base} -name '*.txt' -exec cat {} + 2>/dev/null`,
  `python3 -c "print(open('${fixture.canaryPath}').read())"`,
  "cd .. && cat canary.txt outside/secret.txt",
  `cat ${fixture.root}-evil/secret.txt`,
];

describe("confinement corpus", () => {
  it("has at least 30 hostile paths", () => {
    expect(hostilePaths.length).toBeGreaterThanOrEqual(30);
  });

  describe.each(hostilePaths)("$name", (hostile) => {
    it.each(operations)("%s is refused", async (_operation, run) => {
      const outcome = await run(hostile.path(fixture)).then(
        (value) => ({ value }),
        (error: { code?: string; message?: string }) => ({ code: error.code, message: error.message }),
      );
      seen.push(JSON.stringify(outcome));
      expect(outcome).toMatchObject({ code: hostile.code });
    });
  });

  it("shell commands cannot read, change or remove anything outside the workspace", async () => {
    const commands = [
      ...readProbes(),
      "cp ../canary.txt stolen.txt; cat stolen.txt",
      `echo pwned > ../canary.txt; echo pwned > ${fixture.outside}/secret.txt; echo pwned > link-out`,
      `rm -rf ../canary.txt ${fixture.outside} ${fixture.root}-evil`,
      `mv ${fixture.outside} ./stolen-dir`,
      `ln ${fixture.canaryPath} hardlink.txt; cat hardlink.txt`,
    ];
    for (const command of commands) {
      const result = await workspace.exec(command, execOptions());
      seen.push(result.stdout, result.stderr);
      expect(result.stdout + result.stderr, command).not.toContain(fixture.canary);
    }
    // Links the shell plants are refused by the file operations too.
    await workspace.exec(`ln -s ${fixture.canaryPath} planted && ln -s ${fixture.outside} planted-dir`, execOptions());
    await expect(workspace.readFile("planted")).rejects.toMatchObject({ code: "outside_workspace" });
    await expect(workspace.writeFile("planted-dir/x.txt", "x")).rejects.toMatchObject({ code: "outside_workspace" });
    await expect(workspace.grep({ pattern: "CANARY", outputMode: "content", glob: "*" })).resolves.toMatchObject({ lines: [] });
  });

  it("positive control: without the sandbox, every read probe shows the canary", async () => {
    const unsandboxed = await openWorkspace(fixture, { sandbox: { enabled: false } });
    try {
      for (const command of readProbes()) {
        const result = await unsandboxed.exec(command, execOptions());
        expect(result.stdout, command).toContain(fixture.canary);
      }
    } finally {
      await unsandboxed.dispose();
    }
  });

  it("left everything outside the workspace as it was, and never showed the canary", async () => {
    expect(await fixture.snapshotOutside()).toBe(before);
    expect(await readFile(fixture.canaryPath, "utf8")).toBe(`${fixture.canary}\n`);
    expect(seen.length).toBeGreaterThan(hostilePaths.length * operations.length);
    for (const text of seen) expect(text).not.toContain(fixture.canary);
  });
});
