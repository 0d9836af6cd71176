import type { ChildProcessWithoutNullStreams } from "node:child_process";
import { mkdir, mkdtemp, readFile, realpath, rm, writeFile } from "node:fs/promises";
import { request } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createRuntime, type Runtime } from "@cairn/api";
import { createRemoteWorkspace } from "@cairn/worker";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { runCairn } from "../support/cli.ts";
import { freePort, startWorkerProcess, stopWorkerProcess } from "../support/worker-process.ts";
import { workspaceToolRunner } from "./tools-support.ts";

const token = "remote-worker-test-token-0123456789";
let parent: string;
let workerRoot: string;
let port: number;
const workers: ChildProcessWithoutNullStreams[] = [];
const runtimes: Runtime[] = [];

/** Starts the real `cairn worker --listen` and waits for its "listening" line. */
async function startWorker(): Promise<ChildProcessWithoutNullStreams> {
  const child = await startWorkerProcess({ port, root: workerRoot, cwd: parent, token });
  workers.push(child);
  return child;
}

async function startRuntime(workspace: string): Promise<Runtime> {
  const apiRoot = join(parent, "api-side");
  await mkdir(apiRoot, { recursive: true });
  const runtime = await createRuntime({
    workspaceRoot: apiRoot,
    cairnHome: join(parent, "api-home"),
    version: "test",
    apiKey: "test",
    baseURL: "http://127.0.0.1:9",
    trusted: false,
    managedSettingsPath: join(parent, "no-managed-settings.json"),
    remoteWorkspace: (init) => createRemoteWorkspace({ url: `ws://127.0.0.1:${port}`, token, workspace, ...init }),
  });
  runtimes.push(runtime);
  return runtime;
}

beforeAll(async () => {
  parent = await realpath(await mkdtemp(join(tmpdir(), "cairn-remote-worker-")));
  workerRoot = join(parent, "worker-root");
  await mkdir(workerRoot);
  // A file beside the workspaces, on the worker host: no tool may reach it.
  await writeFile(join(workerRoot, "secret.txt"), "worker secret\n");
  port = await freePort();
});

afterEach(async () => {
  for (const runtime of runtimes.splice(0)) await runtime.close();
  for (const worker of workers.splice(0)) await stopWorkerProcess(worker, "SIGTERM");
});

afterAll(async () => {
  await rm(parent, { recursive: true, force: true });
});

describe("cairn worker --listen", { timeout: 120_000 }, () => {
  it("refuses to start without CAIRN_WORKER_TOKEN", async () => {
    const run = await runCairn(["worker", "--listen", `127.0.0.1:${port}`, "--root", workerRoot], { cwd: parent });
    expect(run.code).toBe(2);
    expect(run.stderr).toContain("CAIRN_WORKER_TOKEN is not set");
  });

  it("refuses a connection with a wrong or missing token", async () => {
    await startWorker();
    await expect(
      createRemoteWorkspace({ url: `ws://127.0.0.1:${port}`, token: "not-the-right-token-at-all", workspace: "w1", sandbox: { enabled: true } }),
    ).rejects.toMatchObject({ code: "worker_unavailable", message: expect.stringContaining("refused the token") });
    const status = await new Promise<number | undefined>((resolve, reject) => {
      const upgrade = request({
        host: "127.0.0.1",
        port,
        headers: { connection: "Upgrade", upgrade: "websocket", "sec-websocket-version": "13", "sec-websocket-key": "dGhlIHNhbXBsZSBub25jZQ==" },
      });
      upgrade.once("response", (response) => resolve(response.statusCode));
      upgrade.once("upgrade", () => resolve(101));
      upgrade.once("error", reject);
      upgrade.end();
    });
    expect(status).toBe(401);
  });

  it("runs Write, Read and Bash through the runtime's remote workspace, confined to the worker's root", async () => {
    await startWorker();
    const runtime = await startRuntime("project-a");
    const workspaceDir = join(workerRoot, "project-a");
    expect(runtime.workspace.root).toBe(workspaceDir);
    const run = workspaceToolRunner(runtime.workspace);

    const written = await run("Write", { file_path: join(workspaceDir, "notes.md"), content: "hello from the api node\n" });
    expect(written.isError).toBe(false);
    expect(await readFile(join(workspaceDir, "notes.md"), "utf8")).toBe("hello from the api node\n");

    const read = await run("Read", { file_path: join(workspaceDir, "notes.md") });
    expect(read.isError).toBe(false);
    expect(read.text).toContain("hello from the api node");

    const bash = await run("Bash", { command: "pwd && cat notes.md" });
    expect(bash.isError).toBe(false);
    expect(bash.text).toContain(workspaceDir);
    expect(bash.text).toContain("hello from the api node");

    // Hostile paths: the worker's own files beside the workspace, and a workspace name that climbs out.
    const beside = await run("Read", { file_path: join(workerRoot, "secret.txt") });
    expect(beside.isError).toBe(true);
    expect(beside.text).not.toContain("worker secret");
    const climb = await run("Read", { file_path: join(workspaceDir, "..", "secret.txt") });
    expect(climb.isError).toBe(true);
    expect(climb.text).not.toContain("worker secret");
    await expect(createRemoteWorkspace({ url: `ws://127.0.0.1:${port}`, token, workspace: "..", sandbox: { enabled: true } })).rejects.toThrow(
      /workspace name/,
    );
  });

  it("turns a worker killed mid-call into a tool error, and the next call after a restart works", async () => {
    const worker = await startWorker();
    const runtime = await startRuntime("project-b");
    const run = workspaceToolRunner(runtime.workspace);
    expect((await run("Bash", { command: "echo before" })).text).toContain("before");

    const marker = join(workerRoot, "project-b", "started");
    const inFlight = run("Bash", { command: `touch ${marker} && sleep 30`, timeout: 120_000 });
    // Kill the worker once the command is really running on it.
    for (let waited = 0; waited < 30_000; waited += 50) {
      if (
        await readFile(marker).then(
          () => true,
          () => false,
        )
      )
        break;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    await stopWorkerProcess(worker, "SIGKILL");
    const failed = await inFlight;
    expect(failed.isError).toBe(true);
    expect(failed.text).toContain("remote workspace worker is unreachable");

    await startWorker();
    const after = await run("Bash", { command: "echo after && cat started; echo exit=$?" });
    expect(after.isError).toBe(false);
    expect(after.text).toContain("after");
    expect(after.text).toContain("exit=0");
  });
});
