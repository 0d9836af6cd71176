import { existsSync } from "node:fs";
import { mkdir, mkdtemp, readdir, readFile, realpath, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { startModelSim, type ModelSim } from "@cairn/model-sim";
import { localWorkerScript } from "../support/cli.ts";
import { startServeProcess, type ServeProcess } from "../support/serve-process.ts";
import { apiClient, eventually } from "./api-harness.ts";
import { text } from "./share-support.ts";

const bash = (command: string) => ({ content: [{ type: "tool_use" as const, name: "Bash", input: { command, timeout: 120_000 } }] });

type ToolResult = { type: "tool_result"; is_error?: boolean; content: unknown };

/** The tool results the simulator's `index`th request carried, as text, with their error flags. */
function requestToolResults(sim: ModelSim, index: number): Array<{ isError: boolean; text: string }> {
  const messages = (sim.requests[index]?.body as { messages?: Array<{ content?: unknown }> } | undefined)?.messages ?? [];
  return messages.flatMap((message) =>
    Array.isArray(message.content)
      ? (message.content as ToolResult[])
          .filter((block) => block.type === "tool_result")
          .map((block) => ({ isError: block.is_error === true, text: JSON.stringify(block.content) }))
      : [],
  );
}

/** The pids of `pid`'s child processes running the local worker launcher (packages/cli/bin/worker.js). */
async function localWorkerChildren(pid: number): Promise<number[]> {
  const children: number[] = [];
  for (const task of await readdir(`/proc/${pid}/task`).catch(() => [])) {
    const listed = await readFile(`/proc/${pid}/task/${task}/children`, "utf8").catch(() => "");
    children.push(...listed.split(" ").filter(Boolean).map(Number));
  }
  const workers: number[] = [];
  for (const child of children) {
    const argv = (await readFile(`/proc/${child}/cmdline`, "utf8").catch(() => "")).split("\0");
    if (argv.includes(localWorkerScript)) workers.push(child);
  }
  return workers;
}

/**
 * The embedded default: `cairn serve` without --worker-url reaches its workspace through a local worker process over
 * the worker protocol, the same boundary a remote worker is reached through. Separate processes, the model simulator
 * over HTTP through the real SDK, the real sandbox.
 */
describe("cairn serve with its local worker process", { timeout: 240_000 }, () => {
  let parent: string;
  let sim: ModelSim;
  let node: ServeProcess | undefined;

  beforeAll(async () => {
    parent = await realpath(await mkdtemp(join(tmpdir(), "cairn-local-worker-")));
    sim = await startModelSim({ scenario: { turns: [] } });
  });

  afterEach(async () => {
    await node?.stop("SIGKILL");
    node = undefined;
  });

  afterAll(async () => {
    await sim?.close();
    await rm(parent, { recursive: true, force: true });
  });

  it("serves the tools and the file tree from a child process; a killed child is a tool error, and the next call starts a new one", async () => {
    const workspace = join(parent, "project");
    await mkdir(workspace);
    await writeFile(join(workspace, "notes.md"), "kept on disk\n");
    const home = join(parent, "node-local", ".cairn");
    await mkdir(home, { recursive: true });
    // Bash is allowed by the user's settings: no prompt waits for a person.
    await writeFile(join(home, "settings.json"), JSON.stringify({ permissions: { allow: ["Bash"] } }));
    // The worker's directory goes under the test's folder: a server killed with SIGKILL cannot remove it itself.
    const temporary = join(parent, "tmp");
    await mkdir(temporary);
    node = await startServeProcess({ parent, nodeId: "local", workspace, modelUrl: sim.url, env: { TMPDIR: temporary } });
    const serverPid = node.child.pid ?? 0;
    const client = apiClient(node.url, node.token);

    // The file tree and the editor go through the worker, which the server started as its child.
    expect((await client.workspace.tree.query()).entries.map((entry) => entry.name)).toContain("notes.md");
    await client.workspace.write.mutate({ path: join(workspace, "from-editor.txt"), content: "saved in the IDE\n" });
    expect(await readFile(join(workspace, "from-editor.txt"), "utf8")).toBe("saved in the IDE\n");
    const [firstWorker, ...others] = await localWorkerChildren(serverPid);
    expect(firstWorker).toBeGreaterThan(0);
    expect(others).toEqual([]);

    const marker = join(workspace, "started");
    sim.setScenario({
      turns: [bash(`touch ${marker} && sleep 30`), text("The worker went away."), bash("echo after; cat notes.md"), text("Back.")],
    });
    const { sessionId } = await client.session.create.mutate();
    await client.session.send.mutate({ sessionId, prompt: "run the long command" });
    await eventually(() => expect(existsSync(marker)).toBe(true), 60_000);
    process.kill(firstWorker ?? 0, "SIGKILL");
    const killedAt = Date.now();
    await eventually(async () => expect((await client.session.get.query({ sessionId })).running).toBe(false), 60_000);
    // The call in flight ended when its worker died, not when `sleep 30` would have, and the model was told.
    expect(Date.now() - killedAt).toBeLessThan(25_000);
    const [failed] = requestToolResults(sim, 1);
    expect(failed?.isError).toBe(true);
    expect(failed?.text).toContain("The workspace worker process stopped (signal SIGKILL) during exec; the next call starts a new one");

    await client.session.send.mutate({ sessionId, prompt: "try again" });
    await eventually(async () => expect((await client.session.get.query({ sessionId })).running).toBe(false), 60_000);
    const after = requestToolResults(sim, 3).at(-1);
    expect(after?.isError).toBe(false);
    expect(after?.text).toContain("after");
    expect(after?.text).toContain("kept on disk");
    expect(sim.remainingTurns()).toBe(0);
    // A new child serves the workspace now, the file tree included.
    const [secondWorker] = await localWorkerChildren(serverPid);
    expect(secondWorker).toBeGreaterThan(0);
    expect(secondWorker).not.toBe(firstWorker);
    expect((await client.workspace.tree.query()).entries.map((entry) => entry.name)).toEqual(
      expect.arrayContaining(["notes.md", "from-editor.txt", "started"]),
    );
  });
});
