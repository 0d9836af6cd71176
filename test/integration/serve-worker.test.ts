import { existsSync } from "node:fs";
import { mkdir, mkdtemp, readdir, readFile, realpath, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import postgres from "postgres";
import { startPrivatePostgres } from "@cairn/api/distributed-testing";
import { startModelSim, type ModelSim } from "@cairn/model-sim";
import { runCairn } from "../support/cli.ts";
import { startServeProcess } from "../support/serve-process.ts";
import { freePort, startWorkerProcess, stopWorkerProcess } from "../support/worker-process.ts";
import { apiClient, eventually } from "./api-harness.ts";
import { text } from "./share-support.ts";

const WORKER_TOKEN = "serve-worker-test-token-0123456789";

const bash = (command: string) => ({ content: [{ type: "tool_use" as const, name: "Bash", input: { command, timeout: 120_000 } }] });

type ToolResultBlock = { type: "tool_result"; tool_use_id: string; is_error?: boolean; content: unknown };

/** The tool_result blocks of a list of messages (transcript lines' `message`, or a request's messages). */
function toolResults(messages: ReadonlyArray<{ role?: string; content?: unknown }>): ToolResultBlock[] {
  return messages.flatMap((message) =>
    Array.isArray(message.content)
      ? (message.content as Array<{ type?: string }>).filter((block): block is ToolResultBlock => block.type === "tool_result")
      : [],
  );
}

/** The messages of the simulator's `index`th request. */
const requestMessages = (sim: ModelSim, index: number) =>
  (sim.requests[index]?.body as { messages?: Array<{ role?: string; content?: unknown }> } | undefined)?.messages ?? [];

const resultText = (block: ToolResultBlock | undefined) => JSON.stringify(block?.content ?? "");

/** `$CAIRN_HOME/projects/<dir>/<sessionId>.jsonl` on the API node, found by name. */
async function transcriptLines(cairnHome: string, sessionId: string): Promise<Array<{ type: string; message?: { role?: string; content?: unknown } }>> {
  const projects = join(cairnHome, "projects");
  for (const directory of await readdir(projects)) {
    const path = join(projects, directory, `${sessionId}.jsonl`);
    if (existsSync(path))
      return (await readFile(path, "utf8"))
        .trim()
        .split("\n")
        .map((line) => JSON.parse(line));
  }
  throw new Error(`no transcript for ${sessionId} under ${projects}`);
}

/**
 * `cairn serve --worker-url` as separate processes: the API node reaches its workspace only on a `cairn worker
 * --listen` host; the model is the simulator over HTTP, through the real SDK.
 */
describe("cairn serve --worker-url", { timeout: 240_000 }, () => {
  let parent: string;
  let workerRoot: string;
  let sim: ModelSim;
  const processes: Array<{ stop(signal?: NodeJS.Signals): Promise<void> }> = [];

  /** A `cairn worker --listen` on 127.0.0.1:<port>, serving workspaces under `root`. */
  const worker = async (port: number, root = workerRoot) => {
    await mkdir(root, { recursive: true });
    const cwd = join(parent, `worker-${port}`);
    await mkdir(cwd, { recursive: true });
    const child = await startWorkerProcess({ port, root, cwd, token: WORKER_TOKEN });
    const started = { url: `ws://127.0.0.1:${port}`, stop: (signal: NodeJS.Signals = "SIGTERM") => stopWorkerProcess(child, signal) };
    processes.push(started);
    return started;
  };
  const serve = async (nodeId: string, workerUrls: string[], databaseUrl?: string) => {
    const home = join(parent, `node-${nodeId}`, ".cairn");
    await mkdir(home, { recursive: true });
    // Bash is allowed by the user's settings on this node: no prompt waits for a person.
    await writeFile(join(home, "settings.json"), JSON.stringify({ permissions: { allow: ["Bash"] } }));
    const node = await startServeProcess({
      parent,
      nodeId,
      workspace: "project",
      modelUrl: sim.url,
      workerUrls,
      ...(databaseUrl ? { databaseUrl } : {}),
      env: { CAIRN_WORKER_TOKEN: WORKER_TOKEN },
    });
    processes.push(node);
    return node;
  };

  beforeAll(async () => {
    parent = await realpath(await mkdtemp(join(tmpdir(), "cairn-serve-worker-")));
    workerRoot = join(parent, "worker-root");
    sim = await startModelSim({ scenario: { turns: [] } });
  });

  afterEach(async () => {
    for (const each of processes.splice(0).reverse()) await each.stop("SIGKILL");
  });

  afterAll(async () => {
    await sim?.close();
    await rm(parent, { recursive: true, force: true });
  });

  it("runs the session's tools, file tree and git on the worker; a worker killed mid-tool is a tool error and the next prompt works once it is back", async () => {
    const port = await freePort();
    let workerProcess = await worker(port);
    const node = await serve("api-1", [workerProcess.url]);
    const client = apiClient(node.url, node.token);
    const workspaceDir = join(workerRoot, "project");
    expect((await client.meta.info.query()).workspaceRoot).toBe(workspaceDir);
    // The API node keeps no copy of the workspace: what the worker holds is what the IDE sees.
    await writeFile(join(workspaceDir, "on-worker.txt"), "written on the worker host\n");
    expect((await client.workspace.tree.query()).entries.map((entry) => entry.name)).toContain("on-worker.txt");
    expect((await client.workspace.read.query({ path: join(workspaceDir, "on-worker.txt") })).content).toBe("written on the worker host\n");
    await client.workspace.write.mutate({ path: join(workspaceDir, "from-editor.txt"), content: "saved in the IDE\n" });
    expect(await readFile(join(workspaceDir, "from-editor.txt"), "utf8")).toBe("saved in the IDE\n");
    expect(await client.git.status.query()).toEqual({ repository: false });
    await client.git.init.mutate();
    expect(existsSync(join(workspaceDir, ".git"))).toBe(true);
    await client.git.stage.mutate({ paths: ["from-editor.txt", "on-worker.txt"] });
    const staged = await client.git.status.query();
    expect(staged.repository && staged.files.map((file) => [file.path, file.staged])).toEqual([
      ["from-editor.txt", "added"],
      ["on-worker.txt", "added"],
    ]);
    // Nothing of the workspace lands on the API node's own disk.
    expect(existsSync(join(node.home, ".cairn", "worker-workspaces", "project", "from-editor.txt"))).toBe(false);

    await client.git.commit.mutate({ message: "First files on the worker" });
    await writeFile(join(workspaceDir, "CLAUDE.md"), "Memory kept on the worker host.\n");
    const marker = join(workspaceDir, "started");
    sim.setScenario({
      turns: [bash(`touch ${marker} && sleep 30`), text("The worker went away."), bash("echo after && cat started; echo exit=$?"), text("Back.")],
    });
    const { sessionId } = await client.session.create.mutate();
    await client.session.send.mutate({ sessionId, prompt: "run the long command" });
    await eventually(() => expect(existsSync(marker)).toBe(true), 60_000);
    // The conversation starts with the worker's memory file and git state.
    const firstRequest = JSON.stringify(sim.requests[0]?.body);
    expect(firstRequest).toContain("Memory kept on the worker host.");
    expect(firstRequest).toContain("First files on the worker");
    expect(firstRequest).toContain("?? CLAUDE.md");
    await workerProcess.stop("SIGKILL");
    const killedAt = Date.now();
    await eventually(async () => expect((await client.session.get.query({ sessionId })).running).toBe(false), 60_000);
    // The in-flight call ended when the worker died, not when `sleep 30` would have.
    expect(Date.now() - killedAt).toBeLessThan(25_000);

    const lines = await transcriptLines(join(node.home, ".cairn"), sessionId);
    const [failed] = toolResults(lines.flatMap((line) => (line.message ? [line.message] : [])));
    expect(failed?.is_error).toBe(true);
    expect(resultText(failed)).toContain("remote workspace worker is unreachable");
    // The model was told, and the session answered and went idle.
    expect(resultText(toolResults(requestMessages(sim, 1)).at(-1))).toContain("unreachable");
    expect(lines.at(-1)?.message?.content).toEqual([{ type: "text", text: "The worker went away." }]);

    workerProcess = await worker(port);
    await client.session.send.mutate({ sessionId, prompt: "try again" });
    await eventually(async () => expect((await client.session.get.query({ sessionId })).running).toBe(false), 60_000);
    const after = toolResults(requestMessages(sim, 3)).at(-1);
    expect(after?.is_error ?? false).toBe(false);
    expect(resultText(after)).toContain("after");
    expect(resultText(after)).toContain("exit=0");
    expect(sim.remainingTurns()).toBe(0);
  });

  it("refuses to start, with the reason, when the worker refuses the token or is not there", async () => {
    const port = await freePort();
    const workerProcess = await worker(port);
    const home = join(parent, "refused");
    await mkdir(home, { recursive: true });
    const common = { cwd: home, timeoutMs: 60_000 };
    const env = { HOME: home, CAIRN_HOME: join(home, ".cairn"), ANTHROPIC_API_KEY: "test", ANTHROPIC_BASE_URL: sim.url };
    const args = ["serve", "--api-only", "--port", "0", "--workspace", "project"];

    const wrongToken = await runCairn([...args, "--worker-url", workerProcess.url], {
      ...common,
      env: { ...env, CAIRN_WORKER_TOKEN: "not-the-token-of-this-worker" },
    });
    expect(wrongToken.code).toBe(1);
    expect(wrongToken.stderr).toContain(`${workerProcess.url}: the worker refused the token (CAIRN_WORKER_TOKEN differs)`);

    const nobody = `ws://127.0.0.1:${await freePort()}`;
    const unreachable = await runCairn([...args, "--worker-url", nobody], { ...common, env: { ...env, CAIRN_WORKER_TOKEN: WORKER_TOKEN } });
    expect(unreachable.code).toBe(1);
    expect(unreachable.stderr).toContain(`Could not connect to the remote worker ${nobody}`);
    expect(unreachable.stderr).toContain("ECONNREFUSED");

    const noToken = await runCairn([...args, "--worker-url", workerProcess.url], { ...common, env });
    expect(noToken.code).toBe(2);
    expect(noToken.stderr).toContain("--worker-url needs CAIRN_WORKER_TOKEN");

    const folder = await runCairn(["serve", "--api-only", "--workspace", "/srv/project", "--worker-url", workerProcess.url], {
      ...common,
      env: { ...env, CAIRN_WORKER_TOKEN: WORKER_TOKEN },
    });
    expect(folder.code).toBe(2);
    expect(folder.stderr).toContain("--workspace names a workspace on the worker");
  });

  it("records which worker holds the workspace in PostgreSQL; a node started later with the workers in another order uses the same one", async () => {
    const database = await startPrivatePostgres();
    const sql = postgres(database.url, { max: 1, onnotice: () => undefined });
    try {
      const roots = [join(parent, "worker-one"), join(parent, "worker-two")];
      const [one, two] = [await worker(await freePort(), roots[0]), await worker(await freePort(), roots[1])];
      const urls = [one.url, two.url];
      const first = await serve("api-a", urls, database.url);
      const chosenRoot = (await apiClient(first.url, first.token).meta.info.query()).workspaceRoot;
      const chosen = chosenRoot === join(roots[0] ?? "", "project") ? one.url : two.url;
      expect(chosenRoot).toBe(join(chosen === one.url ? (roots[0] ?? "") : (roots[1] ?? ""), "project"));
      const rows = await sql`select workspace_root, worker_url, worker_workspace, assigned_by_node from cairn_workspace_workers`;
      expect(rows).toEqual([{ workspace_root: "project", worker_url: chosen, worker_workspace: "project", assigned_by_node: "api-a" }]);
      await first.stop();

      // Ranked afresh, the other worker would win now (it holds no workspace): only the record keeps it here.
      const second = await serve("api-b", [...urls].reverse(), database.url);
      expect((await apiClient(second.url, second.token).meta.info.query()).workspaceRoot).toBe(chosenRoot);
      expect(await sql`select assigned_by_node from cairn_workspace_workers`).toEqual([{ assigned_by_node: "api-a" }]);
      // The other worker never got the workspace.
      const other = chosen === one.url ? roots[1] : roots[0];
      expect(existsSync(join(other ?? "", "project"))).toBe(false);
    } finally {
      await sql.end();
      await database.stop();
    }
  });
});
