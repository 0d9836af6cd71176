import type { Workspace } from "@cairn/core";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { execOptions, makeFixture, openWorkspace, processesWithArgv, type Fixture, uniqueSleep } from "../testing/fixture.ts";

let fixture: Fixture;
let workspace: Workspace;

beforeEach(async () => {
  fixture = await makeFixture();
  workspace = await openWorkspace(fixture);
});

afterEach(async () => {
  await workspace.dispose();
  await fixture.cleanup();
});

describe("exec timeouts and aborts", () => {
  it("kills a command that runs past its timeout, then restarts the shell in the same directory", async () => {
    await workspace.exec("mkdir -p deep/er && cd deep/er", execOptions());
    const sleeper = uniqueSleep();
    const started = Date.now();
    const result = await workspace.exec(`echo before; ${sleeper.command}; echo never`, execOptions({ timeoutMs: 1_500 }));
    expect(result).toMatchObject({ timedOut: true, interrupted: false, exitCode: null, stdout: "before\n" });
    expect(Date.now() - started).toBeLessThan(60_000); // not the 900 s the command asked for
    await vi.waitFor(async () => expect(await processesWithArgv(sleeper.argv)).toEqual([]), { timeout: 15_000 });
    const next = await workspace.exec("pwd", execOptions());
    expect(next).toMatchObject({ exitCode: 0, stdout: `${fixture.root}/deep/er\n` });
  });

  it("on abort kills the whole process group, children included, and reports interrupted", async () => {
    const child = uniqueSleep();
    const grandchild = uniqueSleep();
    const controller = new AbortController();
    const running = workspace.exec(`${child.command} & (${grandchild.command} &) ; wait`, execOptions({ signal: controller.signal }));
    await vi.waitFor(
      async () => {
        expect(await processesWithArgv(child.argv)).not.toEqual([]);
        expect(await processesWithArgv(grandchild.argv)).not.toEqual([]);
      },
      { timeout: 10_000, interval: 100 },
    );
    controller.abort();
    const result = await running;
    expect(result).toMatchObject({ interrupted: true, timedOut: false, exitCode: null });
    await vi.waitFor(
      async () => {
        expect(await processesWithArgv(child.argv)).toEqual([]);
        expect(await processesWithArgv(grandchild.argv)).toEqual([]);
      },
      { timeout: 15_000 },
    );
    expect((await workspace.exec("echo alive", execOptions())).stdout).toBe("alive\n");
  });

  it("refuses to start a command whose signal is already aborted", async () => {
    const controller = new AbortController();
    controller.abort();
    await expect(workspace.exec("echo no", execOptions({ signal: controller.signal }))).rejects.toThrow();
  });

  it("kills the shells and their commands on dispose", async () => {
    const sleeper = uniqueSleep();
    const running = workspace.exec(sleeper.command, execOptions({ timeoutMs: 60_000 }));
    await vi.waitFor(async () => expect(await processesWithArgv(sleeper.argv)).not.toEqual([]), { timeout: 10_000, interval: 100 });
    await workspace.dispose();
    await running;
    await vi.waitFor(async () => expect(await processesWithArgv(sleeper.argv)).toEqual([]), { timeout: 15_000 });
  });
});
