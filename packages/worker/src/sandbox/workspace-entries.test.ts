import { execFileSync, spawn } from "node:child_process";
import { mkdir, readdir, readFile, rm, stat, writeFile } from "node:fs/promises";
import { join } from "node:path";
import type { Workspace } from "@cairn/core";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { execOptions, makeFixture, openWorkspace, type Fixture } from "../testing/fixture.ts";
import { createWorkerProcessWorkspace } from "../process/worker-client.ts";
import { readWorkerEnv } from "../env.ts";
import { createLocalWorkspace } from "../local-workspace.ts";
import { createSandboxedCommand } from "./sandboxed-command.ts";
import { prepareTerminalLaunch } from "./terminal-launch.ts";

/**
 * The sandbox refuses writes to shell, git, editor and agent files in the workspace, present or not.
 * An absent one is held by an empty directory (bubblewrap mounts only on an entry) while a sandbox
 * runs, which git lists nowhere, and which goes when the last sandbox using it ends: however it ends,
 * however many run at once.
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

/** The `protectMissingFiles` setting on: every absent protected name is refused (the default only stands in `.claude`). */
const strict = { enabled: true, protectMissingFiles: true };

const placeholderNames = [
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
const original = [".git", "hello.txt"];
const whileRunning = [...original, ...placeholderNames].sort();
const hostEntries = async () => (await readdir(fixture.root)).sort();
const hostUntracked = () => execFileSync("git", ["status", "--porcelain", "--untracked-files=all"], { cwd: fixture.root, encoding: "utf8" });
const listing = "ls -A | LC_ALL=C sort | tr '\\n' ' '; echo; git status --porcelain --untracked-files=all";
const expectedListing = `${whileRunning.join(" ")} \n?? hello.txt\n`;

/** Every absent protected name, written or made the way a command would. */
const writeProbe = [
  "echo x > .bashrc; echo bashrc=$?",
  "echo '{}' > .mcp.json; echo mcp=$?",
  "mkdir -p .vscode/x 2>&1; echo vscode=$?",
  "mkdir -p .claude && echo '{}' > .claude/settings.json; echo settings=$?",
  "echo hook > .git/hooks/pre-commit; echo hook=$?",
].join("; ");
const probeLabels = ["bashrc", "mcp", "vscode", "settings", "hook"];

async function sandboxedShell(): Promise<Workspace> {
  const workspace = await openWorkspace(fixture, { sandbox: strict });
  opened.push(workspace);
  return workspace;
}

async function expectRefused(workspace: Workspace): Promise<void> {
  const result = await workspace.exec(writeProbe, execOptions());
  for (const label of probeLabels) expect(result.stdout).toMatch(new RegExp(`^${label}=1$`, "m"));
}

describe("absent protected names", () => {
  it("cannot be written or made from the shell, with a plain error, where an unsandboxed shell can", async () => {
    const workspace = await sandboxedShell();
    const result = await workspace.exec(writeProbe, execOptions());
    for (const label of probeLabels) expect(result.stdout).toMatch(new RegExp(`^${label}=1$`, "m"));
    expect(result.stderr).toMatch(/\.bashrc: Is a directory/);
    expect(result.stderr).toMatch(/\.mcp\.json: Is a directory/);
    expect(result.stdout).toMatch(/cannot create directory .\.vscode\/x.: Read-only file system/);
    expect(result.stderr).toMatch(/\.claude\/settings\.json: Read-only file system/);
    await workspace.dispose();
    expect(await hostEntries()).toEqual(original);
    await expect(stat(join(fixture.root, ".git", "hooks", "pre-commit"))).rejects.toThrow();

    const unsandboxed = await openWorkspace(fixture, { sandbox: { enabled: false } });
    opened.push(unsandboxed);
    const control = await unsandboxed.exec(writeProbe, execOptions());
    for (const label of probeLabels) expect(control.stdout).toMatch(new RegExp(`^${label}=0$`, "m"));
    expect(await readFile(join(fixture.root, ".bashrc"), "utf8")).toBe("x\n");
  });

  it("are empty directories git does not list while a shell runs, inside and out, and gone once it ends", async () => {
    const workspace = await sandboxedShell();
    expect((await workspace.exec(listing, execOptions())).stdout).toBe(expectedListing);
    // The shell is still alive (shells persist between calls).
    expect(await hostEntries()).toEqual(whileRunning);
    for (const name of placeholderNames) expect(await readdir(join(fixture.root, name))).toEqual([]);
    expect(hostUntracked()).toBe("?? hello.txt\n");
    // The file tree (and the agent's listings) leave them out; one that gets content is listed again.
    expect((await workspace.list(fixture.root)).map((entry) => entry.name)).toEqual(original);
    await writeFile(join(fixture.root, ".vscode", "settings.json"), "{}");
    expect((await workspace.list(fixture.root)).map((entry) => entry.name)).toEqual([".git", ".vscode", "hello.txt"]);
    await workspace.dispose();
    expect(await hostEntries()).toEqual([...original, ".vscode"].sort());
    await rm(join(fixture.root, ".vscode"), { recursive: true });
    expect(await hostEntries()).toEqual(original);
    expect(hostUntracked()).toBe("?? hello.txt\n");
  });

  it("are gone after a command is killed (timeout), and come back protected with the next shell", async () => {
    const workspace = await sandboxedShell();
    const killed = await workspace.exec("sleep 30", execOptions({ timeoutMs: 1_500 }));
    expect(killed.timedOut).toBe(true);
    await expect.poll(hostEntries, { timeout: 10_000 }).toEqual(original);
    await expectRefused(workspace);
    await workspace.dispose();
    expect(await hostEntries()).toEqual(original);
  });

  it("stay protected in one shell while another on the same workspace ends, and go with the last", async () => {
    const first = await sandboxedShell();
    const second = await sandboxedShell();
    await first.exec("true", execOptions());
    await second.exec("true", execOptions());
    await first.dispose();
    // Removing a placeholder on the host would have detached the second shell's mount over it.
    expect(await hostEntries()).toEqual(whileRunning);
    await expectRefused(second);
    await second.dispose();
    expect(await hostEntries()).toEqual(original);
  });

  it("across processes: a worker process's shell and this process's shell, then the worker killed", async () => {
    const worker = await createWorkerProcessWorkspace({ root: fixture.root, sandbox: strict });
    opened.push(worker);
    expect((await worker.exec(listing, execOptions())).stdout).toBe(expectedListing);
    const local = await sandboxedShell();
    await local.exec("true", execOptions());
    await local.dispose();
    expect(await hostEntries()).toEqual(whileRunning);
    await expectRefused(worker);
    // The worker dies with its sandbox; what only it held goes at the next sandbox start or end in any process.
    const pid = worker.pid;
    expect(pid).toBeTypeOf("number");
    process.kill(pid ?? 0, "SIGKILL");
    await expect.poll(() => isRunning(pid ?? 0), { timeout: 10_000 }).toBe(false);
    expect(await hostEntries()).toEqual(whileRunning);
    const other = await makeFixture();
    try {
      const elsewhere = await createSandboxedCommand({ command: "/bin/true", root: other.root, label: "sweep", policy: { protectMissingFiles: true } });
      await elsewhere.dispose();
    } finally {
      await other.cleanup();
    }
    expect(await hostEntries()).toEqual(original);
  });

  it("for a long-running sandboxed command (a stdio MCP server) and a terminal at once", async () => {
    const command = await createSandboxedCommand({
      command: "/bin/bash",
      args: ["-c", "echo x > .bashrc; echo bashrc=$?; sleep 30"],
      root: fixture.root,
      label: "probe",
      policy: { protectMissingFiles: true },
    });
    const child = spawn(command.command, command.args, { cwd: command.cwd, env: command.env, stdio: ["ignore", "pipe", "pipe"] });
    const terminal = await prepareTerminalLaunch({ root: fixture.root, sandbox: strict });
    // The terminal's interactive bash, kept alive on an open stdin (the IDE gives it a pty).
    const shell = spawn(terminal.file, terminal.args, { cwd: terminal.cwd, env: terminal.env, stdio: ["pipe", "pipe", "pipe"] });
    try {
      let listed = "";
      child.stdout.on("data", (chunk: Buffer) => (listed += chunk.toString()));
      await expect.poll(() => listed, { timeout: 15_000 }).toBe("bashrc=1\n");
      let echoed = "";
      shell.stdout.on("data", (chunk: Buffer) => (echoed += chunk.toString()));
      shell.stdin.write("echo '{}' > .mcp.json; echo mcp=$?\n");
      // The shell runs on a pty of its own inside the sandbox, which echoes the typed line: look for the answer only.
      await expect.poll(() => echoed, { timeout: 15_000 }).toMatch(/mcp=1\r?\n/);
      expect(await hostEntries()).toEqual(whileRunning);
      expect(hostUntracked()).toBe("?? hello.txt\n");
      child.kill("SIGKILL");
      await new Promise((resolve) => child.once("close", resolve));
      await command.dispose();
      // The terminal still holds them.
      expect(await hostEntries()).toEqual(whileRunning);
    } finally {
      for (const process of [child, shell]) {
        process.kill("SIGKILL");
        if (process.exitCode === null && process.signalCode === null) await new Promise((resolve) => process.once("close", resolve));
      }
      await command.dispose();
      await terminal.release();
    }
    expect(await hostEntries()).toEqual(original);
  });
});

describe("by default (protectMissingFiles off)", () => {
  it("only .claude stands in while a shell runs; other absent names stay creatable; .claude's settings and git hooks are refused", async () => {
    const workspace = await openWorkspace(fixture);
    expect((await workspace.exec(listing, execOptions())).stdout).toBe(`${[...original, ".claude"].sort().join(" ")} \n?? hello.txt\n`);
    expect(await hostEntries()).toEqual([...original, ".claude"].sort());
    const result = await workspace.exec(writeProbe, execOptions());
    for (const label of ["bashrc", "mcp", "vscode"]) expect(result.stdout).toMatch(new RegExp(`^${label}=0$`, "m"));
    for (const label of ["settings", "hook"]) expect(result.stdout).toMatch(new RegExp(`^${label}=1$`, "m"));
    await workspace.dispose();
    expect(await hostEntries()).toEqual([...original, ".bashrc", ".mcp.json", ".vscode"].sort());
    await expect(stat(join(fixture.root, ".git", "hooks", "pre-commit"))).rejects.toThrow();
  });
});

describe("the placeholder state", () => {
  it("is hidden from the sandbox even where the host's temp dir is elsewhere", async () => {
    const state = `/tmp/cairn-sandbox-placeholders-${process.getuid?.() ?? "user"}`;
    const temporary = join(fixture.base, "tmp");
    await mkdir(temporary);
    const workspace = await createLocalWorkspace({ root: fixture.root, sandbox: strict }, { ...readWorkerEnv(), tmpDir: temporary });
    opened.push(workspace);
    const probe = `ls -A ${state}; echo status=$?`;
    const result = await workspace.exec(probe, execOptions());
    expect(await readdir(state)).toContain("placeholders.json");
    expect(result.stdout).toBe("status=0\n");
    const unsandboxed = await openWorkspace(fixture, { sandbox: { enabled: false } });
    opened.push(unsandboxed);
    expect((await unsandboxed.exec(probe, execOptions())).stdout).toMatch(/placeholders\.json\n(.*\n)*status=0\n$/);
  });
});

describe("present protected names", () => {
  it("stay as they are, writes to them refused, and nothing is added beside them", async () => {
    await writeFile(join(fixture.root, ".bashrc"), "# mine\n");
    await mkdir(join(fixture.root, ".vscode"));
    await mkdir(join(fixture.root, ".claude"));
    const probe =
      "echo evil >> .bashrc; echo bashrc=$?; echo '[core]' >> .git/config; echo config=$?; " +
      "echo '{}' > .claude/settings.local.json; echo settings=$?; echo '{}' > .vscode/tasks.json; echo tasks=$?";
    const workspace = await sandboxedShell();
    const result = await workspace.exec(probe, execOptions());
    for (const label of ["bashrc", "config", "settings", "tasks"]) expect(result.stdout).toMatch(new RegExp(`^${label}=1$`, "m"));
    expect(result.stderr).toMatch(/\.bashrc: Read-only file system/);
    expect(await readFile(join(fixture.root, ".bashrc"), "utf8")).toBe("# mine\n");
    expect(await readdir(join(fixture.root, ".vscode"))).toEqual([]);
    expect(await readdir(join(fixture.root, ".claude"))).toEqual([]);
    await workspace.dispose();
    // The user's own (empty) directories are theirs: never removed.
    const present = [".bashrc", ".claude", ".vscode"];
    expect(await hostEntries()).toEqual([...original, ...present].sort());

    const unsandboxed = await openWorkspace(fixture, { sandbox: { enabled: false } });
    opened.push(unsandboxed);
    const control = await unsandboxed.exec(probe, execOptions());
    for (const label of ["bashrc", "config", "settings", "tasks"]) expect(control.stdout).toMatch(new RegExp(`^${label}=0$`, "m"));
  });
});

function isRunning(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}
