import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { WorkspaceError } from "@cairn/core";
import { createLocalWorkspace, type TerminalListeners, type WorkspaceTerminals } from "@cairn/worker";
import type { TerminalOutput } from "../router/types.ts";
import { TerminalManager } from "./terminal-manager.ts";

let root: string;
let dispose: () => Promise<void>;
let host: WorkspaceTerminals;

beforeEach(async () => {
  root = await mkdtemp(join(tmpdir(), "cairn-terminal-manager-"));
  // No sandbox: the reaping logic is what is under test.
  const workspace = await createLocalWorkspace({ root, sandbox: { enabled: false } });
  host = workspace.terminals;
  dispose = () => workspace.dispose();
});

afterEach(async () => {
  await dispose();
  await rm(root, { recursive: true, force: true });
});

function manager() {
  let now = 1_000_000;
  const terminals = new TerminalManager(() => host, { idleMs: 60_000, now: () => now });
  return { terminals, advance: (ms: number) => (now += ms) };
}

async function firstChunk(stream: AsyncGenerator<unknown>): Promise<void> {
  await stream.next();
}

describe("TerminalManager reaping", () => {
  it("closes a terminal nobody has watched for the idle time, and only that one", async () => {
    const { terminals, advance } = manager();
    try {
      const abandoned = await terminals.open({ cols: 80, rows: 24 });
      const watched = await terminals.open({ cols: 80, rows: 24 });
      const reader = new AbortController();
      const stream = terminals.output(watched.terminalId, 0, reader.signal);
      await terminals.input(watched.terminalId, "echo hi\n");
      await firstChunk(stream);
      advance(59_000);
      expect(await terminals.reapIdle()).toEqual([]);
      advance(2_000);
      expect(await terminals.reapIdle()).toEqual([abandoned.terminalId]);
      expect(terminals.openCount).toBe(1);
      await expect(terminals.input(abandoned.terminalId, "x")).rejects.toThrow(/No terminal/);

      // The watcher leaves (tab closed): the idle time starts then.
      reader.abort();
      await stream.return(undefined);
      advance(59_000);
      expect(await terminals.reapIdle()).toEqual([]);
      advance(2_000);
      expect(await terminals.reapIdle()).toEqual([watched.terminalId]);
      expect(terminals.openCount).toBe(0);
    } finally {
      await terminals.closeAll();
    }
  });

  it("keeps a terminal while a reconnecting tab's new stream overlaps the old one", async () => {
    const { terminals, advance } = manager();
    try {
      const { terminalId } = await terminals.open({ cols: 80, rows: 24 });
      const old = terminals.output(terminalId, 0, new AbortController().signal);
      await terminals.input(terminalId, "echo one\n");
      await firstChunk(old);
      const fresh = terminals.output(terminalId, 0, new AbortController().signal);
      await firstChunk(fresh);
      await old.return(undefined);
      advance(120_000);
      expect(await terminals.reapIdle()).toEqual([]);
      await fresh.return(undefined);
    } finally {
      await terminals.closeAll();
    }
  });
});

/** A worker's terminals as the API sees them, the loss of the worker played by the test. */
function scriptedHost() {
  const opened: { listeners: TerminalListeners }[] = [];
  const terminals: WorkspaceTerminals = {
    async open(_options, listeners) {
      opened.push({ listeners });
      return {
        cwd: "/w",
        sandboxed: true,
        write: async () => undefined,
        resize: async () => undefined,
        pause: () => undefined,
        resume: () => undefined,
        close: async () => listeners.onExit({ exitCode: 0, signal: null }),
      };
    },
  };
  return { terminals, opened };
}

async function readToEnd(stream: AsyncIterable<{ output: TerminalOutput }>): Promise<TerminalOutput[]> {
  const outputs: TerminalOutput[] = [];
  for await (const { output } of stream) outputs.push(output);
  return outputs;
}

describe("TerminalManager and the workspace's worker", () => {
  it("ends a terminal lost with its worker with a line saying so, then an exit", async () => {
    const scripted = scriptedHost();
    const terminals = new TerminalManager(() => scripted.terminals);
    const { terminalId } = await terminals.open({ cols: 80, rows: 24 });
    scripted.opened[0]!.listeners.onData("$ ");
    scripted.opened[0]!.listeners.onExit({ exitCode: null, signal: null, lostReason: "This shell ended because its workspace worker went away" });
    const outputs = await readToEnd(terminals.output(terminalId, 0, new AbortController().signal));
    expect(outputs[0]).toEqual({ type: "data", data: "$ " });
    expect(outputs[1]).toMatchObject({ type: "data", data: expect.stringContaining("workspace worker went away. Open a new shell to continue.") });
    expect(outputs[2]).toEqual({ type: "exit", exitCode: null, signal: null });
    // Input to the ended shell is dropped, not sent to a worker that is gone.
    await terminals.input(terminalId, "ls\n");
    await terminals.closeAll();
  });

  it("turns a workspace refusal at open into terminal_unavailable with the worker's words", async () => {
    const terminals = new TerminalManager(() => ({
      open: async () => {
        throw new WorkspaceError("worker_unavailable", "Could not connect to the remote worker ws://127.0.0.1:9: connect ECONNREFUSED");
      },
    }));
    await expect(terminals.open({ cols: 80, rows: 24 })).rejects.toMatchObject({
      code: "terminal_unavailable",
      message: expect.stringContaining("ECONNREFUSED"),
    });
    expect(terminals.openCount).toBe(0);
  });
});
