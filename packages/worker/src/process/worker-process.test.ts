import { spawn } from "node:child_process";
import { once } from "node:events";
import { mkdir, readdir, readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import type { OutputChunk, WatchEvent } from "@cairn/core";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { execOptions, makeFixture, processesWithArgv, uniqueSleep, type Fixture } from "../testing/fixture.ts";
import { createWorkerProcessWorkspace, type WorkerProcessWorkspace } from "./worker-client.ts";

let fixture: Fixture;
let workspace: WorkerProcessWorkspace;

let temporaryDirectory: string;

beforeEach(async () => {
  fixture = await makeFixture();
  temporaryDirectory = join(fixture.base, "tmp");
  await mkdir(temporaryDirectory);
  workspace = await createWorkerProcessWorkspace({ root: fixture.root, sandbox: { enabled: true }, temporaryDirectory });
});

afterEach(async () => {
  await workspace.dispose();
  await fixture.cleanup();
});

// Each test starts one or two worker processes (tsx compiles the worker on start), which is slow on a busy machine.
describe("the workspace in a worker process", { timeout: 120_000 }, () => {
  it("serves file operations, search and streamed exec output across the process boundary", async () => {
    const bytes = new Uint8Array([0, 1, 2, 250, 255]);
    await workspace.writeFile("bin/data.bin", bytes);
    expect(await workspace.readFile("bin/data.bin")).toEqual(bytes);
    await workspace.writeFile("notes.md", "a needle here\n");
    expect(await workspace.stat("notes.md")).toMatchObject({ kind: "file", size: 14, path: join(fixture.root, "notes.md") });
    expect((await workspace.list(".")).map((entry) => entry.name)).toEqual(["bin", "notes.md"]);
    expect(await workspace.grep({ pattern: "needle", outputMode: "content" })).toMatchObject({
      lines: [`${fixture.root}/notes.md:1:a needle here`],
      engine: "ripgrep",
    });
    expect((await workspace.glob("**/*.md", { limit: 10 })).paths).toEqual([join(fixture.root, "notes.md")]);
    const chunks: OutputChunk[] = [];
    const result = await workspace.exec("cd bin && echo out && echo err >&2", { ...execOptions(), onOutput: (chunk) => chunks.push(chunk) });
    expect(result).toMatchObject({ exitCode: 0, stdout: "out\n", stderr: "err\n", cwd: join(fixture.root, "bin"), sandboxed: true });
    expect(chunks).toEqual([
      { stream: "stdout", data: "out\n" },
      { stream: "stderr", data: "err\n" },
    ]);
    expect(await readFile(join(fixture.root, "notes.md"), "utf8")).toBe("a needle here\n");
  });

  it("keeps WorkspaceError codes across the boundary", async () => {
    await expect(workspace.readFile("../canary.txt")).rejects.toMatchObject({ name: "WorkspaceError", code: "outside_workspace", path: "../canary.txt" });
    await expect(workspace.readFile("missing.txt")).rejects.toMatchObject({ code: "not_found" });
    await expect(workspace.grep({ pattern: "(", outputMode: "content" })).rejects.toMatchObject({ code: "invalid_pattern" });
    await expect(workspace.readBackground("bg-none")).rejects.toMatchObject({ code: "not_found" });
  });

  it("runs git in the worker process: init, stage, commit, branches, with GitError codes kept across the boundary", async () => {
    await writeFile(join(fixture.root, "a.txt"), "one\n");
    expect(await workspace.git.status()).toEqual({ repository: false });
    await expect(workspace.git.stage(["a.txt"])).rejects.toMatchObject({ name: "GitError", code: "not_a_repository" });
    await workspace.git.init();
    await workspace.git.stage(["a.txt"]);
    await expect(workspace.git.commit("  ")).rejects.toMatchObject({ name: "GitError", code: "empty_commit_message" });
    await expect(workspace.git.stage(["../outside.txt"])).rejects.toMatchObject({ code: "outside_workspace" });
    expect(await workspace.git.commit("Add a.txt")).toMatchObject({ summary: "Add a.txt" });
    await expect(workspace.git.createBranch("bad..name")).rejects.toMatchObject({ code: "invalid_branch_name" });
    expect(await workspace.git.branches()).toEqual([{ name: "main", current: true }]);
    expect(await workspace.git.status()).toMatchObject({ repository: true, branch: "main", unborn: false, files: [] });
  });

  it("turns a killed worker into worker_unavailable for calls in flight, and the next call starts a fresh worker", async () => {
    const sleeper = uniqueSleep();
    const firstPid = workspace.pid;
    expect(firstPid).toBeDefined();
    const running = workspace.exec(sleeper.command, execOptions({ timeoutMs: 60_000 }));
    await vi.waitFor(async () => expect(await processesWithArgv(sleeper.argv)).not.toEqual([]), { timeout: 45_000, interval: 100 });
    process.kill(firstPid ?? 0, "SIGKILL");
    await expect(running).rejects.toMatchObject({ code: "worker_unavailable", message: expect.stringContaining("during exec") });
    // The sandbox dies with its worker, so the command does not linger.
    await vi.waitFor(async () => expect(await processesWithArgv(sleeper.argv)).toEqual([]), { timeout: 15_000 });
    const next = await workspace.exec("echo back", execOptions());
    expect(next).toMatchObject({ exitCode: 0, stdout: "back\n" });
    expect(workspace.pid).toBeDefined();
    expect(workspace.pid).not.toBe(firstPid);
    // The killed worker could not clean up after itself; its parent did: only the new worker's directory is left.
    expect(await readdir(temporaryDirectory)).toHaveLength(1);
    await workspace.dispose();
    expect(await readdir(temporaryDirectory)).toEqual([]);
  });

  it("leaves nothing of a server killed with its worker: the next one to start a worker there removes its directory", async () => {
    const shared = join(fixture.base, "shared-tmp");
    await mkdir(shared);
    const client = fileURLToPath(new URL("./worker-client.ts", import.meta.url));
    const options = { root: fixture.root, sandbox: { enabled: false }, temporaryDirectory: shared };
    const script = [
      `const { createWorkerProcessWorkspace } = await import(${JSON.stringify(client)});`,
      `const workspace = await createWorkerProcessWorkspace(${JSON.stringify(options)});`,
      "await workspace.stat('.');",
      "process.stdout.write('ready\\n');",
      "setInterval(() => undefined, 1_000);",
    ].join("\n");
    const server = spawn(process.execPath, ["--import", "tsx", "--input-type=module", "-e", script], { stdio: ["ignore", "pipe", "inherit"] });
    await new Promise<void>((resolve, reject) => {
      server.stdout.on("data", (chunk: Buffer) => chunk.toString().includes("ready") && resolve());
      server.once("exit", (code) => reject(new Error(`the server exited (${code}) before its worker was ready`)));
    });
    const left = await readdir(shared);
    expect(left).toEqual([expect.stringMatching(new RegExp(`^cairn-worker-[0-9a-f]{8}-${server.pid}\\.\\d+-`))]);
    server.kill("SIGKILL");
    await once(server, "exit");
    // Killed, it could not remove its worker's directory.
    expect(await readdir(shared)).toEqual(left);
    const next = await createWorkerProcessWorkspace(options);
    try {
      await vi.waitFor(async () => expect((await readdir(shared)).filter((name) => left.includes(name))).toEqual([]), { timeout: 15_000 });
      // Only the new worker's own directory is there.
      expect(await readdir(shared)).toEqual([expect.stringMatching(new RegExp(`^cairn-worker-[0-9a-f]{8}-${process.pid}\\.`))]);
    } finally {
      await next.dispose();
    }
  });

  it("ends a worker no call reached at dispose (killed, not awaited), leaving no process and no directory behind", async () => {
    const pid = workspace.pid;
    expect(pid).toBeDefined();
    await workspace.dispose();
    // Gone and reaped: signal 0 finds no such process.
    expect(() => process.kill(pid ?? 0, 0)).toThrow(expect.objectContaining({ code: "ESRCH" }));
    expect(await readdir(temporaryDirectory)).toEqual([]);
    await expect(workspace.stat(".")).rejects.toMatchObject({ code: "worker_unavailable" });
  });

  it("aborts a command in the worker and reports it interrupted", async () => {
    const sleeper = uniqueSleep();
    const controller = new AbortController();
    const running = workspace.exec(sleeper.command, execOptions({ signal: controller.signal, timeoutMs: 60_000 }));
    await vi.waitFor(async () => expect(await processesWithArgv(sleeper.argv)).not.toEqual([]), { timeout: 45_000, interval: 100 });
    controller.abort();
    expect(await running).toMatchObject({ interrupted: true, exitCode: null });
    await vi.waitFor(async () => expect(await processesWithArgv(sleeper.argv)).toEqual([]), { timeout: 15_000 });
  });

  it("streams watch events with absolute paths until aborted", async () => {
    const events: WatchEvent[] = [];
    const controller = new AbortController();
    workspace.watch((event) => events.push(event), controller.signal);
    await vi.waitFor(
      async () => {
        await workspace.writeFile("watched.txt", `${Date.now()}`);
        expect(events.some((event) => event.path === join(fixture.root, "watched.txt"))).toBe(true);
      },
      { timeout: 45_000, interval: 200 },
    );
    controller.abort();
  });

  it("a file saved over and over (a temporary file renamed over it) is found by every stat made meanwhile, of it and of each path the watch names", async () => {
    // What the IDE's workspace.watch does: stat each changed path through the worker. A save never makes the
    // file missing or a stat fail (the "deleted on disk" once seen in memory-panel.spec was the test's own cleanup).
    const file = join(fixture.root, "CLAUDE.md");
    await workspace.writeFile(file, "# rules\n");
    const changed: string[] = [];
    const named = new Set<string>();
    const controller = new AbortController();
    workspace.watch((event) => {
      changed.push(event.path);
      named.add(event.path);
    }, controller.signal);
    const failures: string[] = [];
    let stats = 0;
    let saving = true;
    const statLoop = (async () => {
      while (saving || changed.length > 0) {
        const path = changed.shift() ?? file;
        stats++;
        const found = await workspace.stat(path).catch((error: unknown) => {
          failures.push(`${path}: ${String(error)}`);
          return undefined;
        });
        if (path === file && found === null) failures.push(`${path}: missing`);
      }
    })();
    for (let save = 0; save < 150; save++) await workspace.writeFile(file, `# rules, version ${save}\n`);
    await vi.waitFor(() => expect(named.has(file)).toBe(true), { timeout: 10_000 });
    saving = false;
    await statLoop;
    controller.abort();
    expect(failures).toEqual([]);
    expect(stats).toBeGreaterThan(150);
    expect(await readFile(file, "utf8")).toBe("# rules, version 149\n");
  });
});
