import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, test, vi } from "vitest";
import { createNodeHookRunner } from "./hook-runner.ts";

let cwd: string;
beforeEach(async () => {
  cwd = await mkdtemp(join(tmpdir(), "cairn-hook-runner-"));
});
afterEach(async () => {
  await rm(cwd, { recursive: true, force: true });
});

const request = (command: string, extra: Partial<Parameters<ReturnType<typeof createNodeHookRunner>["run"]>[0]> = {}) => ({
  command,
  stdin: '{"hello":"world"}',
  cwd,
  timeoutMs: 10_000,
  signal: new AbortController().signal,
  ...extra,
});

describe("createNodeHookRunner", () => {
  test("runs sh -c in the workspace with stdin, env, stdout, stderr and the exit code", async () => {
    const runner = createNodeHookRunner({ baseEnv: { PATH: process.env.PATH } });
    const result = await runner.run(request('cat; echo; pwd; echo "$GREETING" >&2; exit 3', { env: { GREETING: "hi" } }));
    expect(result).toMatchObject({ exitCode: 3, timedOut: false, aborted: false, stderr: "hi\n" });
    expect(result.stdout).toBe(`{"hello":"world"}\n${cwd}\n`);
  });

  test("kills the whole process group on timeout", async () => {
    const runner = createNodeHookRunner({ baseEnv: { PATH: process.env.PATH }, killGraceMs: 200 });
    const marker = join(cwd, "child-pid");
    const result = await runner.run(request(`sleep 30 & echo $! > ${marker}; wait`, { timeoutMs: 300 }));
    expect(result).toMatchObject({ exitCode: null, timedOut: true });
    const childPid = Number((await readFile(marker, "utf8")).trim());
    // Gone, or a zombie waiting for init to reap it: either way no longer running.
    await vi.waitFor(async () => {
      const stat = await readFile(`/proc/${childPid}/stat`, "utf8").catch(() => "");
      expect(stat === "" || stat.split(") ")[1]?.startsWith("Z")).toBe(true);
    });
  });

  test("an abort stops the hook", async () => {
    const runner = createNodeHookRunner({ baseEnv: { PATH: process.env.PATH } });
    const controller = new AbortController();
    const pending = runner.run(request("echo started; sleep 30", { signal: controller.signal }));
    controller.abort();
    expect(await pending).toMatchObject({ aborted: true, exitCode: null });
    const already = await runner.run(request("echo never", { signal: controller.signal }));
    expect(already).toMatchObject({ aborted: true, stdout: "" });
  });

  test("wrapCommand lets a sandbox wrap the command", async () => {
    const seen: string[] = [];
    const runner = createNodeHookRunner({
      baseEnv: { PATH: process.env.PATH },
      wrapCommand: async (command) => {
        seen.push(command);
        return `echo wrapped; ${command}`;
      },
    });
    const result = await runner.run(request("echo inner"));
    expect(seen).toEqual(["echo inner"]);
    expect(result.stdout).toBe("wrapped\ninner\n");
  });

  test("a hook that cannot start is reported, not thrown", async () => {
    const runner = createNodeHookRunner({ baseEnv: { PATH: process.env.PATH } });
    const result = await runner.run(request("true", { cwd: join(cwd, "missing") }));
    expect(result.spawnError).toBeDefined();
  });

  test("a background child keeping stdout open does not hold the result", async () => {
    const runner = createNodeHookRunner({ baseEnv: { PATH: process.env.PATH } });
    const result = await runner.run(request("sleep 5 & echo done", { timeoutMs: 4_000 }));
    expect(result).toMatchObject({ exitCode: 0, timedOut: false, stdout: "done\n" });
  });
});
