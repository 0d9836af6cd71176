import { tmpdir } from "node:os";
import { describe, expect, it } from "vitest";
import type { TerminalLaunch } from "@cairn/worker";
import type { Runtime } from "../runtime/create-runtime.ts";
import { TerminalManager } from "./terminal-manager.ts";

/** A plain bash in a pty (no sandbox): the reaping logic is what is under test. */
const plainBash = async (): Promise<TerminalLaunch> => ({
  file: "bash",
  args: ["--norc", "--noprofile"],
  env: { PATH: process.env.PATH ?? "/usr/bin:/bin", TERM: "xterm-256color" },
  cwd: tmpdir(),
  sandboxed: false,
  release: async () => undefined,
});

function manager() {
  let now = 1_000_000;
  const terminals = new TerminalManager({} as Runtime, { launch: plainBash, idleMs: 60_000, now: () => now });
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
      terminals.input(watched.terminalId, "echo hi\n");
      await firstChunk(stream);
      advance(59_000);
      expect(await terminals.reapIdle()).toEqual([]);
      advance(2_000);
      expect(await terminals.reapIdle()).toEqual([abandoned.terminalId]);
      expect(terminals.openCount).toBe(1);
      expect(() => terminals.input(abandoned.terminalId, "x")).toThrow(/No terminal/);

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
      terminals.input(terminalId, "echo one\n");
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
