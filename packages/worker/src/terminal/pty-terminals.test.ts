import { basename } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { readWorkerEnv } from "../env.ts";
import { makeFixture, type Fixture } from "../testing/fixture.ts";
import { createPtyTerminals, MAX_TERMINALS_PER_WORKSPACE } from "./pty-terminals.ts";
import type { WorkspaceTerminal } from "./terminal-port.ts";

let fixture: Fixture;

beforeEach(async () => {
  fixture = await makeFixture();
});

afterEach(async () => {
  await fixture.cleanup();
});

const quiet = { onData: () => undefined, onExit: () => undefined };

describe("createPtyTerminals", { timeout: 120_000 }, () => {
  it("bounds the shells of one workspace, closes them all at dispose and opens none after", async () => {
    // Unsandboxed: the bound and the cleanup are what is under test.
    const terminals = createPtyTerminals({ root: fixture.root, sandbox: { enabled: false } }, readWorkerEnv());
    const opened: WorkspaceTerminal[] = [];
    for (let index = 0; index < MAX_TERMINALS_PER_WORKSPACE; index++) opened.push(await terminals.open({ cols: 80, rows: 24 }, quiet));
    await expect(terminals.open({ cols: 80, rows: 24 }, quiet)).rejects.toMatchObject({
      code: "io_error",
      message: `At most ${MAX_TERMINALS_PER_WORKSPACE} terminals can be open in one workspace`,
    });
    // A closed shell makes room again.
    await opened.pop()!.close();
    opened.push(await terminals.open({ cols: 80, rows: 24 }, quiet));
    await expect(opened[0]!.resize(0, 24)).rejects.toMatchObject({ code: "invalid_request", message: expect.stringContaining("Invalid terminal size") });
    await terminals.closeAll();
    await expect(terminals.open({ cols: 80, rows: 24 }, quiet)).rejects.toMatchObject({ code: "worker_unavailable" });
  });
});

describe("a sandboxed terminal", { timeout: 120_000 }, () => {
  it("shows its own prompt (the directory), not bash's default", async () => {
    const terminals = createPtyTerminals({ root: fixture.root, sandbox: { enabled: true } }, readWorkerEnv());
    let output = "";
    let prompted = () => {};
    let exited = (_error: Error) => {};
    const prompt = new Promise<void>((resolve, reject) => {
      prompted = resolve;
      exited = reject;
    });
    const terminal = await terminals.open(
      { cols: 80, rows: 24 },
      {
        onData: (data: string) => {
          output += data;
          if (/[$#] $/.test(output)) prompted();
        },
        onExit: () => exited(new Error(`The shell exited: ${output}`)),
      },
    );
    try {
      await prompt;
      expect(output).toMatch(new RegExp(`${basename(fixture.root)} [$#] $`));
      expect(output).not.toMatch(/bash-\d/);
    } finally {
      await terminal.close();
      await terminals.closeAll();
    }
  });
});
