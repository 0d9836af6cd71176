import { existsSync } from "node:fs";
import { mkdir, mkdtemp, realpath, rm, writeFile } from "node:fs/promises";
import { homedir, tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { createRuntime, type Runtime } from "@cairn/api";
import type { AnyTool } from "@cairn/core";
import { testContext } from "@cairn/core/testing";
import { everythingServer, filesystemServer } from "./mcp-support.ts";
import { localWorkerScript } from "../support/cli.ts";

/**
 * Stdio MCP servers started by the runtime run in the worker's sandbox: they still work (list tools,
 * call them) but cannot write outside the workspace. Each test starts its own runtime.
 */

let parent: string;
let root: string;
/**
 * Visible to the sandbox but read-only: a directory under /var/tmp (not the repository, which may itself be
 * checked out under the hidden /tmp, nor the home directory, which is hidden too).
 */
let visibleOutside: string;
/** Hidden by the sandbox (the host's temp dir): writes land in a throwaway tmpfs. */
let hiddenOutside: string;
const runtimes: Runtime[] = [];

beforeAll(async () => {
  parent = await realpath(await mkdtemp(join(tmpdir(), "cairn-mcp-sandbox-")));
  root = join(parent, "ws");
  hiddenOutside = join(parent, "outside");
  await mkdir(root);
  await mkdir(hiddenOutside);
  await writeFile(join(root, "notes.txt"), "alpha\n");
  visibleOutside = await realpath(await mkdtemp(join("/var/tmp", "cairn-mcp-sandbox-outside-")));
});
afterEach(async () => {
  await Promise.all(runtimes.splice(0).map((runtime) => runtime.close()));
});
afterAll(async () => {
  await rm(parent, { recursive: true, force: true });
  await rm(visibleOutside, { recursive: true, force: true });
});

async function startRuntime(servers: Record<string, unknown>, settings: object = {}): Promise<Runtime> {
  const runtime = await createRuntime({
    workerScript: localWorkerScript,
    workspaceRoot: root,
    cairnHome: join(parent, "home"),
    version: "test",
    apiKey: "test",
    baseURL: "http://127.0.0.1:9",
    trusted: true,
    managedSettingsPath: join(parent, "no-managed-settings.json"),
    flagSettings: JSON.stringify(settings),
    mcpConfig: [JSON.stringify({ mcpServers: servers })],
  });
  runtimes.push(runtime);
  return runtime;
}

function tool(runtime: Runtime, name: string): AnyTool {
  const found = runtime.mcp.allTools().find((candidate) => candidate.name === name);
  if (!found) throw new Error(`no ${name}: ${JSON.stringify(runtime.mcp.servers())}`);
  return found;
}

/** Calls an MCP tool directly (the pipeline is covered by mcp-servers.test.ts); returns its text and error flag. */
async function call(runtime: Runtime, name: string, input: Record<string, unknown>): Promise<{ text: string; isError: boolean }> {
  const found = tool(runtime, name);
  const context = { ...testContext(), signal: new AbortController().signal, tools: [found], messages: [] };
  const returned = found.call(input, context, { toolUseId: "toolu_1", assistantMessage: undefined as never });
  let result = Symbol.asyncIterator in returned ? undefined : await returned;
  if (!result) {
    const generator = returned as AsyncGenerator<unknown, NonNullable<typeof result>>;
    for (let step = await generator.next(); ; step = await generator.next()) {
      if (step.done) {
        result = step.value;
        break;
      }
    }
  }
  const content = result.content;
  const text = typeof content === "string" ? content : JSON.stringify(content);
  return { text, isError: result.isError === true };
}

describe("stdio MCP servers in the sandbox", () => {
  it("work normally: server-everything lists its tools and echoes, and is marked sandboxed", async () => {
    const runtime = await startRuntime({ everything: { command: process.execPath, args: [everythingServer, "stdio"] } });
    const [server] = runtime.mcp.servers();
    expect(server).toMatchObject({ name: "everything", transport: "stdio", status: { state: "connected" }, launch: { sandboxed: true } });
    expect(server?.status).not.toHaveProperty("warning");
    expect(server?.tools).toContain("echo");
    expect(await call(runtime, "mcp__everything__echo", { message: "from the sandbox" })).toEqual({ text: "Echo: from the sandbox", isError: false });
  });

  it("cannot write outside the workspace, though the server itself would allow it", async () => {
    const home = homedir();
    const servers = { files: { command: process.execPath, args: [filesystemServer, root, visibleOutside, hiddenOutside, home] } };
    const runtime = await startRuntime(servers);
    expect(runtime.mcp.servers()[0]).toMatchObject({ status: { state: "connected" }, launch: { sandboxed: true } });

    const inside = await call(runtime, "mcp__files__write_file", { path: join(root, "made-by-mcp.txt"), content: "inside" });
    expect(inside.isError).toBe(false);
    expect(existsSync(join(root, "made-by-mcp.txt"))).toBe(true);

    // A visible directory outside: read-only in the sandbox.
    const visible = await call(runtime, "mcp__files__write_file", { path: join(visibleOutside, "x.txt"), content: "escape" });
    expect(visible.isError).toBe(true);
    expect(visible.text).toMatch(/EROFS|read-only/i);
    expect(existsSync(join(visibleOutside, "x.txt"))).toBe(false);

    // The host's temp dir and the server's home are hidden: whatever the server writes there never reaches the host.
    const probe = `cairn-mcp-probe-${process.pid}.txt`;
    await call(runtime, "mcp__files__write_file", { path: join(hiddenOutside, probe), content: "escape" });
    await call(runtime, "mcp__files__write_file", { path: join(home, probe), content: "escape" });
    expect(existsSync(join(hiddenOutside, probe))).toBe(false);
    expect(existsSync(join(home, probe))).toBe(false);
  });

  it("runs outside the sandbox when the settings turn it off, and says so in the status", async () => {
    const servers = { files: { command: process.execPath, args: [filesystemServer, root, visibleOutside] } };
    const runtime = await startRuntime(servers, { sandbox: { enabled: false } });
    const [server] = runtime.mcp.servers();
    expect(server?.launch?.sandboxed).toBe(false);
    expect(server?.status).toMatchObject({ state: "connected", warning: expect.stringContaining("not sandboxed") });
    expect(runtime.store.getState().mcp.servers.files).toMatchObject({ warning: expect.stringContaining("not sandboxed") });
    // The same write the sandbox refuses goes through here, which shows the test above can fail.
    const written = await call(runtime, "mcp__files__write_file", { path: join(visibleOutside, "y.txt"), content: "unconfined" });
    expect(written.isError).toBe(false);
    expect(existsSync(join(visibleOutside, "y.txt"))).toBe(true);
  });
});
