import { mkdir } from "node:fs/promises";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { makeFixture, processesWithArgv, uniqueSleep, type Fixture } from "../testing/fixture.ts";
import type { TerminalExit, WorkspaceTerminal } from "../terminal/terminal-port.ts";
import { HIGH_WATER_CHARS, MAX_BATCH_CHARS } from "../terminal/terminal-output-flow.ts";
import { createWorkerProcessWorkspace, type WorkerProcessWorkspace } from "./worker-client.ts";

let fixture: Fixture;
let workspace: WorkerProcessWorkspace;

beforeEach(async () => {
  fixture = await makeFixture();
  const temporaryDirectory = join(fixture.base, "tmp");
  await mkdir(temporaryDirectory);
  workspace = await createWorkerProcessWorkspace({ root: fixture.root, sandbox: { enabled: true }, temporaryDirectory });
});

afterEach(async () => {
  await workspace.dispose();
  await fixture.cleanup();
});

/** Opens a terminal in the worker and records what it shows. */
async function openShell(options: { cols?: number; rows?: number; cwd?: string } = {}) {
  let text = "";
  let received = 0;
  let exit: TerminalExit | undefined;
  const terminal: WorkspaceTerminal = await workspace.terminals.open(
    { cols: options.cols ?? 80, rows: options.rows ?? 24, ...(options.cwd === undefined ? {} : { cwd: options.cwd }) },
    {
      onData: (data) => {
        received += data.length;
        // Keep the tail only: a flood would make the whole text large.
        text = (text + data).slice(-20_000);
      },
      onExit: (ended) => {
        exit = ended;
      },
    },
  );
  return {
    terminal,
    text: () => text,
    received: () => received,
    exit: () => exit,
    async waitFor(pattern: RegExp) {
      await vi.waitFor(() => expect(text).toMatch(pattern), { timeout: 30_000, interval: 50 });
    },
  };
}

describe("the web terminal in a worker process", { timeout: 120_000 }, () => {
  it("runs a sandboxed shell in the workspace: typed input, output, resize, exit code", async () => {
    const shell = await openShell();
    expect(shell.terminal).toMatchObject({ cwd: fixture.root, sandboxed: true });
    await shell.terminal.write("echo hi-$((40+2)) && pwd\r");
    await shell.waitFor(/hi-42\r?\n/);
    expect(shell.text()).toContain(fixture.root);
    // What the sandbox allows the agent's Bash, it allows here: nothing beside the workspace is readable.
    await shell.terminal.write(`cat ${fixture.canaryPath} || echo canary-$((1))-refused\r`);
    await shell.waitFor(/canary-1-refused/);
    expect(shell.text()).not.toContain(fixture.canary);
    // The shell sits on a pty of its own inside the sandbox (bubblewrap's new session has no terminal): a resize reaches it.
    await shell.terminal.resize(100, 30);
    await shell.terminal.write("stty size\r");
    await shell.waitFor(/30 100/);
    // Ctrl-C interrupts the running command, not the shell, and job control works.
    expect(shell.text()).not.toContain("no job control");
    const sleeper = uniqueSleep();
    await shell.terminal.write(`${sleeper.command}; echo slept-$((5))\r`);
    await vi.waitFor(async () => expect(await processesWithArgv(sleeper.argv)).not.toEqual([]), { timeout: 30_000, interval: 100 });
    await shell.terminal.write("\x03");
    await vi.waitFor(async () => expect(await processesWithArgv(sleeper.argv)).toEqual([]), { timeout: 15_000, interval: 100 });
    await shell.terminal.write("sleep 300 &\rjobs; kill %1; echo interrupted-$((4))\r");
    await shell.waitFor(/\[1\]\+ +Running +sleep 300 &/);
    await shell.waitFor(/interrupted-4/);
    expect(shell.text()).not.toContain("slept-5");
    await shell.terminal.write("exit 3\r");
    await vi.waitFor(() => expect(shell.exit()).toEqual({ exitCode: 3, signal: null }), { timeout: 30_000 });
    // Input to an ended shell is dropped quietly.
    await shell.terminal.write("echo late\r");
  });

  it("starts in a directory inside the workspace and refuses one outside, or bad options, plainly", async () => {
    await mkdir(join(fixture.root, "src"));
    const shell = await openShell({ cwd: "src" });
    expect(shell.terminal.cwd).toBe(join(fixture.root, "src"));
    await shell.terminal.write("pwd\r");
    await shell.waitFor(new RegExp(`${join(fixture.root, "src")}\\r?\\n`));
    await shell.terminal.close();
    expect(shell.exit()).toBeDefined();

    await expect(openShell({ cwd: "../outside" })).rejects.toMatchObject({ name: "WorkspaceError", code: "outside_workspace" });
    await expect(openShell({ cwd: fixture.canaryPath })).rejects.toMatchObject({ code: "outside_workspace" });
    await expect(openShell({ cols: 1 })).rejects.toMatchObject({ code: "invalid_request", message: expect.stringContaining("Invalid terminal options") });
    await expect(shell.terminal.resize(0, 0)).resolves.toBeUndefined();
  });

  it("makes a shell that floods output wait while its output is not taken, and delivers all of it once resumed", async () => {
    const shell = await openShell();
    await shell.terminal.write("echo ready-$((2))\r");
    await shell.waitFor(/ready-2/);
    shell.terminal.pause();
    const before = shell.received();
    const floodChars = 3_000_000;
    await shell.terminal.write(`head -c ${floodChars} /dev/zero | tr '\\0' x; echo; echo flood-$((3))-done\r`);
    // Output stops growing while nothing is acknowledged: the worker paused the pty.
    let last = -1;
    await vi.waitFor(
      () => {
        const now = shell.received();
        const settled = now === last && now > before + HIGH_WATER_CHARS / 2;
        last = now;
        expect(settled).toBe(true);
      },
      { timeout: 30_000, interval: 500 },
    );
    expect(shell.received() - before).toBeLessThan(HIGH_WATER_CHARS + 4 * MAX_BATCH_CHARS);
    expect(shell.text()).not.toContain("flood-3-done");
    shell.terminal.resume();
    await shell.waitFor(/flood-3-done/);
    expect(shell.received() - before).toBeGreaterThan(floodChars);
  });

  it("ends a terminal with a clear reason when its worker is killed, and the next terminal opens on a new worker", async () => {
    const shell = await openShell();
    const sleeper = uniqueSleep();
    await shell.terminal.write(`${sleeper.command}\r`);
    await vi.waitFor(async () => expect(await processesWithArgv(sleeper.argv)).not.toEqual([]), { timeout: 30_000, interval: 100 });
    const firstPid = workspace.pid;
    process.kill(firstPid ?? 0, "SIGKILL");
    await vi.waitFor(() => expect(shell.exit()).toBeDefined(), { timeout: 30_000 });
    expect(shell.exit()).toMatchObject({ exitCode: null, signal: null, lostReason: expect.stringContaining("workspace worker went away") });
    expect(shell.exit()?.lostReason).toContain("SIGKILL");
    // The shell and what it ran die with their worker.
    await vi.waitFor(async () => expect(await processesWithArgv(sleeper.argv)).toEqual([]), { timeout: 15_000 });
    await shell.terminal.close();

    const again = await openShell();
    expect(workspace.pid).not.toBe(firstPid);
    await again.terminal.write("echo back-$((1))\r");
    await again.waitFor(/back-1/);
  });
});
