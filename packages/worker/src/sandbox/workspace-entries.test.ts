import { execFileSync, spawn } from "node:child_process";
import { mkdir, readdir, readFile, stat, writeFile } from "node:fs/promises";
import { join } from "node:path";
import type { Workspace } from "@cairn/core";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { execOptions, makeFixture, openWorkspace, type Fixture } from "../testing/fixture.ts";
import { createWorkerProcessWorkspace } from "../process/worker-client.ts";
import { createSandboxedCommand } from "./sandboxed-command.ts";
import { prepareTerminalLaunch } from "./terminal-launch.ts";

/**
 * The sandbox protects shell, git, editor and agent files in the workspace without putting anything
 * there: no empty file or directory appears, seen from inside a sandboxed shell or from the host,
 * while shells run or after they end.
 */
let fixture: Fixture;
const opened: Workspace[] = [];

beforeEach(async () => {
  fixture = await makeFixture();
  await writeFile(join(fixture.root, "hello.txt"), "hi\n");
  execFileSync("git", ["init", "-q"], { cwd: fixture.root });
});

afterEach(async () => {
  await Promise.all(opened.splice(0).map((open) => open.dispose()));
  await fixture.cleanup();
});

const hostEntries = async () => (await readdir(fixture.root)).sort();
const hostUntracked = () => execFileSync("git", ["status", "--porcelain", "--untracked-files=all"], { cwd: fixture.root, encoding: "utf8" });

async function sandboxedShell(): Promise<Workspace> {
  const workspace = await openWorkspace(fixture);
  opened.push(workspace);
  return workspace;
}

describe("the sandbox leaves the workspace as it was", () => {
  it("for a shell: nothing new inside or outside, while it runs and after it ends", async () => {
    await mkdir(join(fixture.root, ".claude"));
    const workspace = await sandboxedShell();
    const inside = await workspace.exec("ls -A; echo ---; git status --porcelain --untracked-files=all", execOptions());
    expect(inside.stdout).toBe(".claude\n.git\nhello.txt\n---\n?? hello.txt\n");
    // The shell is still alive (shells persist between calls).
    expect(await hostEntries()).toEqual([".claude", ".git", "hello.txt"]);
    expect(hostUntracked()).toBe("?? hello.txt\n");
    expect(await readdir(join(fixture.root, ".claude"))).toEqual([]);
    await workspace.dispose();
    expect(await hostEntries()).toEqual([".claude", ".git", "hello.txt"]);
    expect(hostUntracked()).toBe("?? hello.txt\n");
  });

  it("for a long-running sandboxed command (a stdio MCP server) and a terminal", async () => {
    await mkdir(join(fixture.root, ".claude"));
    const command = await createSandboxedCommand({ command: "/bin/sh", args: ["-c", "ls -A; sleep 30"], root: fixture.root, label: "probe" });
    const child = spawn(command.command, command.args, { cwd: command.cwd, env: command.env, stdio: ["ignore", "pipe", "pipe"] });
    const terminal = await prepareTerminalLaunch({ root: fixture.root, sandbox: { enabled: true } });
    // The terminal's interactive bash, kept alive on an open stdin (the IDE gives it a pty).
    const shell = spawn(terminal.file, terminal.args, { cwd: terminal.cwd, env: terminal.env, stdio: ["pipe", "pipe", "pipe"] });
    try {
      let echoed = "";
      shell.stdout.on("data", (chunk: Buffer) => (echoed += chunk.toString()));
      shell.stdin.write("ls -A\n");
      await expect.poll(() => echoed, { timeout: 15_000 }).toBe(".claude\n.git\nhello.txt\n");
      let listed = "";
      child.stdout.on("data", (chunk: Buffer) => (listed += chunk.toString()));
      await expect.poll(() => listed, { timeout: 15_000 }).toBe(".claude\n.git\nhello.txt\n");
      expect(await hostEntries()).toEqual([".claude", ".git", "hello.txt"]);
      expect(hostUntracked()).toBe("?? hello.txt\n");
    } finally {
      for (const process of [child, shell]) {
        process.kill("SIGKILL");
        await new Promise((resolve) => process.once("close", resolve));
      }
      await command.dispose();
      await terminal.release();
    }
    expect(await hostEntries()).toEqual([".claude", ".git", "hello.txt"]);
  });

  it("for a worker process, which runs in its workspace (where the sandbox runtime protects the shell files of the working directory)", async () => {
    await mkdir(join(fixture.root, ".claude"));
    const workspace = await createWorkerProcessWorkspace({ root: fixture.root, sandbox: { enabled: true } });
    opened.push(workspace);
    const inside = await workspace.exec("ls -A; echo ---; git status --porcelain --untracked-files=all", execOptions());
    expect(inside.stdout).toBe(".claude\n.git\nhello.txt\n---\n?? hello.txt\n");
    expect(await hostEntries()).toEqual([".claude", ".git", "hello.txt"]);
    await workspace.dispose();
    expect(await hostEntries()).toEqual([".claude", ".git", "hello.txt"]);
  });

  it("in a workspace without .claude only an empty, read-only .claude stands while a shell runs, which git does not list", async () => {
    const workspace = await sandboxedShell();
    const inside = await workspace.exec("ls -A; echo ---; git status --porcelain --untracked-files=all; ls -A .claude", execOptions());
    expect(inside.stdout).toBe(".claude\n.git\nhello.txt\n---\n?? hello.txt\n");
    expect(await hostEntries()).toEqual([".claude", ".git", "hello.txt"]);
    expect(hostUntracked()).toBe("?? hello.txt\n");
    await workspace.dispose();
    expect(await hostEntries()).toEqual([".git", "hello.txt"]);
  });
});

describe("the protection still holds", () => {
  it("refuses writing and creating shell files, git hooks and agent settings, where an unsandboxed shell can", async () => {
    await writeFile(join(fixture.root, ".bashrc"), "# mine\n");
    await mkdir(join(fixture.root, ".vscode"));
    const probe =
      "echo evil >> .bashrc; echo bashrc=$?; echo evil > .git/hooks/pre-commit; echo hook=$?; echo '[core]' >> .git/config; echo config=$?; " +
      "mkdir -p .claude; echo '{}' > .claude/settings.json; echo settings=$?; echo '{}' > .vscode/tasks.json; echo tasks=$?";
    const workspace = await sandboxedShell();
    const result = await workspace.exec(probe, execOptions());
    for (const label of ["bashrc", "hook", "config", "settings", "tasks"]) expect(result.stdout).toMatch(new RegExp(`^${label}=1$`, "m"));
    expect(await readFile(join(fixture.root, ".bashrc"), "utf8")).toBe("# mine\n");
    await expect(stat(join(fixture.root, ".git", "hooks", "pre-commit"))).rejects.toThrow();
    await expect(stat(join(fixture.root, ".vscode", "tasks.json"))).rejects.toThrow();
    await workspace.dispose();
    await expect(stat(join(fixture.root, ".claude"))).rejects.toThrow();

    // With .claude present (and no settings file in it), creating the settings is refused too.
    await mkdir(join(fixture.root, ".claude"));
    const again = await sandboxedShell();
    const second = await again.exec("echo '{}' > .claude/settings.local.json; echo settings=$?", execOptions());
    expect(second.stdout).toBe("settings=1\n");
    expect(await readdir(join(fixture.root, ".claude"))).toEqual([]);

    const unsandboxed = await openWorkspace(fixture, { sandbox: { enabled: false } });
    opened.push(unsandboxed);
    const control = await unsandboxed.exec(probe, execOptions());
    for (const label of ["bashrc", "hook", "config", "settings", "tasks"]) expect(control.stdout).toMatch(new RegExp(`^${label}=0$`, "m"));
  });
});
