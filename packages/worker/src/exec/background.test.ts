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

describe("background jobs", () => {
  it("runs in the shell's directory, and each read returns the output since the last one", async () => {
    await workspace.exec("mkdir -p job && cd job", execOptions());
    const job = await workspace.startBackground("pwd; echo first; echo warn >&2; until [ -e go ]; do sleep 0.05; done; echo second", { shellId: "main" });
    expect(job).toMatchObject({ status: "running", exitCode: null, command: expect.stringContaining("echo first") });
    let stdout = "";
    let stderr = "";
    await vi.waitFor(
      async () => {
        const output = await workspace.readBackground(job.id);
        stdout += output.stdout;
        stderr += output.stderr;
        expect([stdout, stderr]).toEqual([`${fixture.root}/job\nfirst\n`, "warn\n"]);
      },
      { timeout: 10_000, interval: 100 },
    );
    expect(await workspace.readBackground(job.id)).toMatchObject({ stdout: "", stderr: "", status: "running" });
    await workspace.writeFile("job/go", "");
    await vi.waitFor(
      async () => {
        const output = await workspace.readBackground(job.id);
        stdout += output.stdout;
        expect(output.status).toBe("exited");
        expect(output.exitCode).toBe(0);
      },
      { timeout: 10_000, interval: 100 },
    );
    expect(stdout).toBe(`${fixture.root}/job\nfirst\nsecond\n`);
  });

  it("kills the job's whole process group", async () => {
    const sleeper = uniqueSleep();
    const job = await workspace.startBackground(`echo started; ${sleeper.command} & wait`, { shellId: "main" });
    await vi.waitFor(async () => expect(await processesWithArgv(sleeper.argv)).not.toEqual([]), { timeout: 10_000, interval: 100 });
    const killed = await workspace.killBackground(job.id);
    expect(killed.status).toBe("killed");
    await vi.waitFor(async () => expect(await processesWithArgv(sleeper.argv)).toEqual([]), { timeout: 15_000 });
    expect((await workspace.readBackground(job.id)).stdout).toBe("started\n");
  });

  it("keeps only the newest output when a job writes more than its buffer between reads", async () => {
    const job = await workspace.startBackground("head -c 300000 /dev/zero | tr '\\0' x; echo END; touch written; until [ -e stop ]; do sleep 0.05; done", {
      shellId: "main",
    });
    await vi.waitFor(async () => expect(await workspace.stat("written")).not.toBeNull(), { timeout: 10_000, interval: 100 });
    const output = await workspace.readBackground(job.id);
    expect(output.stdout.startsWith("[100004 earlier characters were dropped]\n")).toBe(true);
    expect(output.stdout.endsWith("xEND\n")).toBe(true);
    await workspace.writeFile("stop", "");
  });

  it("refuses unknown job ids", async () => {
    await expect(workspace.readBackground("bg-nope")).rejects.toMatchObject({ code: "not_found" });
    await expect(workspace.killBackground("bg-nope")).rejects.toMatchObject({ code: "not_found" });
  });
});
