import { describe, expect, it } from "vitest";
import type { TerminalEvent } from "../process/protocol-terminal.ts";
import { ServedTerminals } from "./served-terminals.ts";
import type { TerminalListeners, WorkspaceTerminals } from "./terminal-port.ts";

/** Terminals that record what they are asked and whose shells the test drives. */
function fakeTerminals() {
  const shells: { listeners: TerminalListeners; written: string[]; sizes: [number, number][]; closed: boolean; paused: boolean }[] = [];
  const terminals: WorkspaceTerminals = {
    async open(_options, listeners) {
      const shell = { listeners, written: [] as string[], sizes: [] as [number, number][], closed: false, paused: false };
      shells.push(shell);
      listeners.onData("early output ");
      return {
        cwd: "/ws",
        sandboxed: true,
        write: async (data) => void shell.written.push(data),
        resize: async (cols, rows) => void shell.sizes.push([cols, rows]),
        pause: () => void (shell.paused = true),
        resume: () => void (shell.paused = false),
        close: async () => {
          shell.closed = true;
          listeners.onExit({ exitCode: null, signal: 1 });
        },
      };
    },
  };
  return { terminals, shells };
}

describe("ServedTerminals", () => {
  it("tells the client the terminal opened before any output, routes input and resize by id, and answers the exit after the last output", async () => {
    const { terminals, shells } = fakeTerminals();
    const served = new ServedTerminals();
    const events: TerminalEvent[] = [];
    const call = served.open(
      terminals,
      { terminalId: "t1", cols: 80, rows: 24 },
      { signal: new AbortController().signal, send: (event) => events.push(event) },
    );
    await expect.poll(() => shells.length).toBe(1);
    await expect.poll(() => events.length).toBeGreaterThan(0);
    expect(events[0]).toEqual({ type: "opened", cwd: "/ws", sandboxed: true });
    expect(await served.input({ terminalId: "t1", data: "ls\r" })).toBeNull();
    expect(await served.resize({ terminalId: "t1", cols: 120, rows: 40 })).toBeNull();
    expect(shells[0]!.written).toEqual(["ls\r"]);
    expect(shells[0]!.sizes).toEqual([[120, 40]]);
    shells[0]!.listeners.onData("last words");
    shells[0]!.listeners.onExit({ exitCode: 0, signal: null });
    expect(await call).toEqual({ exitCode: 0, signal: null });
    // Batches may split anywhere; together they are everything the shell wrote, in order.
    expect(
      events
        .slice(1)
        .map((event) => (event.type === "output" ? event.data : `<${event.type}>`))
        .join(""),
    ).toBe("early output last words");
    await expect(served.input({ terminalId: "t1", data: "x" })).rejects.toMatchObject({ code: "not_found", message: expect.stringContaining("t1") });
    // A late acknowledgement for a finished terminal is no error.
    expect(served.acknowledge({ terminalId: "t1", chars: 10 })).toBeNull();
  });

  it("hangs the shell up when the call is aborted, and refuses a second terminal under the same id or bad params", async () => {
    const { terminals, shells } = fakeTerminals();
    const served = new ServedTerminals();
    const controller = new AbortController();
    const call = served.open(terminals, { terminalId: "t2", cols: 80, rows: 24 }, { signal: controller.signal, send: () => undefined });
    await expect.poll(() => shells.length).toBe(1);
    await expect(
      served.open(terminals, { terminalId: "t2", cols: 80, rows: 24 }, { signal: new AbortController().signal, send: () => undefined }),
    ).rejects.toMatchObject({
      code: "invalid_request",
      message: "Terminal t2 is already open",
    });
    await expect(served.open(terminals, { terminalId: "t3", cols: 80 }, { signal: new AbortController().signal, send: () => undefined })).rejects.toMatchObject(
      {
        code: "invalid_request",
        message: expect.stringContaining("Invalid terminalOpen request"),
      },
    );
    await expect(served.input({ terminalId: "t2", data: 5 })).rejects.toMatchObject({ code: "invalid_request" });
    controller.abort();
    expect(await call).toEqual({ exitCode: null, signal: 1 });
    expect(shells[0]!.closed).toBe(true);
    expect(shells).toHaveLength(1);
  });
});
