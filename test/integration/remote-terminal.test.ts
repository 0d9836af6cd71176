import type { ChildProcessWithoutNullStreams } from "node:child_process";
import { mkdir, mkdtemp, realpath, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { TerminalManager, type TerminalOutput } from "@cairn/api";
import { createRemoteWorkspace, type WorkerProcessWorkspace } from "@cairn/worker";
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import { freePort, startWorkerProcess, stopWorkerProcess } from "../support/worker-process.ts";

const token = "remote-terminal-test-token-0123456789";
let parent: string;
let workerRoot: string;
let port: number;
const workers: ChildProcessWithoutNullStreams[] = [];
const cleanups: (() => Promise<void>)[] = [];

async function startWorker(): Promise<ChildProcessWithoutNullStreams> {
  const child = await startWorkerProcess({ port, root: workerRoot, cwd: parent, token });
  workers.push(child);
  return child;
}

/** The API side: a remote workspace on the worker, and the API's terminal manager over its terminal port. */
async function connect(workspaceName: string): Promise<{ workspace: WorkerProcessWorkspace; terminals: TerminalManager }> {
  const workspace = await createRemoteWorkspace({ url: `ws://127.0.0.1:${port}`, token, workspace: workspaceName, sandbox: { enabled: true } });
  const terminals = new TerminalManager(() => workspace.terminals);
  cleanups.push(async () => {
    await terminals.closeAll();
    await workspace.dispose();
  });
  return { workspace, terminals };
}

/** Reads a terminal's output as the router does, into one string plus the exit. */
function watch(terminals: TerminalManager, terminalId: string) {
  const controller = new AbortController();
  let text = "";
  let exit: Extract<TerminalOutput, { type: "exit" }> | undefined;
  const done = (async () => {
    for await (const { output } of terminals.output(terminalId, 0, controller.signal)) {
      if (output.type === "data") text += output.data;
      else exit = output;
    }
  })();
  return {
    text: () => text,
    exit: () => exit,
    async waitFor(pattern: RegExp) {
      await vi.waitFor(() => expect(text).toMatch(pattern), { timeout: 30_000, interval: 50 });
    },
    async stop() {
      controller.abort();
      await done;
    },
  };
}

beforeAll(async () => {
  parent = await realpath(await mkdtemp(join(tmpdir(), "cairn-remote-terminal-")));
  workerRoot = join(parent, "worker-root");
  await mkdir(workerRoot);
  await writeFile(join(workerRoot, "secret.txt"), "worker secret beside the workspaces\n");
  port = await freePort();
});

afterEach(async () => {
  for (const cleanup of cleanups.splice(0)) await cleanup();
  for (const worker of workers.splice(0)) await stopWorkerProcess(worker, "SIGTERM");
});

afterAll(async () => {
  await rm(parent, { recursive: true, force: true });
});

describe("the web terminal on a cairn worker --listen host", { timeout: 180_000 }, () => {
  it("runs a sandboxed shell on the worker: echo, resize, confinement, exit", async () => {
    await startWorker();
    const { workspace, terminals } = await connect("term-a");
    const workspaceDir = join(workerRoot, "term-a");
    expect(workspace.root).toBe(workspaceDir);
    const { terminalId } = await terminals.open({ cols: 80, rows: 24 });
    const screen = watch(terminals, terminalId);
    try {
      await terminals.input(terminalId, "echo hi && pwd\r");
      // The typed line echoes as "echo hi && pwd"; only the output has "hi" at a line end.
      await screen.waitFor(/hi\r\n/);
      expect(screen.text()).toContain(workspaceDir);
      await terminals.resize(terminalId, 132, 43);
      await terminals.input(terminalId, "stty size\r");
      await screen.waitFor(/43 132/);
      // The worker's own files beside the workspace are out of the sandboxed shell's reach.
      await terminals.input(terminalId, `cat ${join(workerRoot, "secret.txt")} || echo beside-$((1))-refused\r`);
      await screen.waitFor(/beside-1-refused/);
      expect(screen.text()).not.toContain("worker secret beside");
      await terminals.input(terminalId, "exit 7\r");
      await vi.waitFor(() => expect(screen.exit()).toEqual({ type: "exit", exitCode: 7, signal: null }), { timeout: 30_000 });
    } finally {
      await screen.stop();
    }
  });

  it("ends the terminal with a message when the worker is killed, refuses a new one while it is down, and works again once it is back", async () => {
    const worker = await startWorker();
    const { terminals } = await connect("term-b");
    const { terminalId } = await terminals.open({ cols: 80, rows: 24 });
    const screen = watch(terminals, terminalId);
    try {
      await terminals.input(terminalId, "echo before-$((1))\r");
      await screen.waitFor(/before-1/);
      await stopWorkerProcess(worker, "SIGKILL");
      // No hang: the stream ends, after a line in the terminal saying what happened.
      await vi.waitFor(() => expect(screen.exit()).toEqual({ type: "exit", exitCode: null, signal: null }), { timeout: 30_000 });
      expect(screen.text()).toMatch(/This shell ended because its workspace worker went away: .*remote workspace worker is unreachable/);
      expect(screen.text()).toContain("Open a new shell to continue.");
    } finally {
      await screen.stop();
    }
    // Input to the lost shell is dropped, not an error.
    await terminals.input(terminalId, "ls\r");
    await expect(terminals.open({ cols: 80, rows: 24 })).rejects.toMatchObject({
      code: "terminal_unavailable",
      message: expect.stringContaining("remote worker"),
    });

    await startWorker();
    const reopened = await vi.waitFor(() => terminals.open({ cols: 80, rows: 24 }), { timeout: 30_000, interval: 500 });
    const again = watch(terminals, reopened.terminalId);
    try {
      await terminals.input(reopened.terminalId, "echo after-$((2))\r");
      await again.waitFor(/after-2/);
    } finally {
      await again.stop();
    }
  });
});
