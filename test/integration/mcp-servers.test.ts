import { mkdtemp, readFile, realpath, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import {
  createInitialAppState,
  createPermissionEngine,
  createStore,
  createUserMessage,
  query,
  type AgentEvent,
  type McpManager,
  type Tool,
  type ToolResultBlock,
} from "@cairn/core";
import { createNodeMcpManager, loadSettings, type NodeMcpManagerOptions } from "@cairn/core/node";
import { collectEvents, createScriptedModel, testContext, testDeps, type ScriptedTurn } from "@cairn/core/testing";
import { everythingServer, filesystemServer, startHttpEverything, statusOf, whenServers, type HttpEverything } from "./mcp-support.ts";

let dir: string;
const managers: McpManager[] = [];
const http: HttpEverything[] = [];

beforeAll(async () => {
  dir = await realpath(await mkdtemp(join(tmpdir(), "cairn-mcp-")));
  await writeFile(join(dir, "notes.txt"), "alpha\nbeta\n");
});
afterEach(async () => {
  await Promise.all(managers.splice(0).map((manager) => manager.close()));
  await Promise.all(http.splice(0).map((server) => server.close()));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

async function startManager(servers: Record<string, unknown>, options: Partial<NodeMcpManagerOptions> = {}): Promise<McpManager> {
  const manager = await createNodeMcpManager({
    workspaceRoot: dir,
    version: "test",
    trusted: true,
    mcpConfig: [JSON.stringify({ mcpServers: servers })],
    ...options,
  });
  managers.push(manager);
  await manager.start();
  return manager;
}

const everything = { command: process.execPath, args: [everythingServer, "stdio"] };

function toolCall(id: string, name: string, input: Record<string, unknown>): ScriptedTurn {
  return { content: [{ type: "tool_use", id, name, input }] };
}

/** Runs the model's tool calls through the real loop, pipeline and permission engine. */
async function runThroughPipeline(tools: Tool[], turns: ScriptedTurn[], rules: { allow?: string[]; deny?: string[] }) {
  const settings = await loadSettings({ workspaceRoot: dir, cairnHome: join(dir, ".home"), flagSettings: JSON.stringify({ permissions: rules }) });
  const store = createStore(createInitialAppState({ model: "test-model" }));
  const gate = createPermissionEngine({ getSettings: () => settings.merged, getAppState: store.getState, setAppState: store.setState, workspaceRoot: dir });
  const model = createScriptedModel([...turns, { content: [{ type: "text", text: "done" }] }]);
  const { events } = await collectEvents(
    query({
      messages: [createUserMessage({ uuid: "prompt", timestamp: new Date().toISOString(), parentUuid: null, content: "use the tools" })],
      systemPrompt: ["s"],
      tools,
      model: "test-model",
      signal: new AbortController().signal,
      context: testContext({ store }),
      gate,
      deps: testDeps(model),
    }),
  );
  return { events, model };
}

/** Tool results in the order of the calls (parallel calls finish in any order). */
function results(events: AgentEvent[]): ToolResultBlock[] {
  const calls = events.flatMap((event) => (event.type === "tool-start" ? [event.toolUseId] : []));
  const blocks = events.flatMap((event) =>
    event.type === "message" && event.message.type === "user" && Array.isArray(event.message.message.content)
      ? event.message.message.content.filter((block): block is ToolResultBlock => block.type === "tool_result")
      : [],
  );
  return calls.flatMap((id) => blocks.filter((block) => block.tool_use_id === id));
}

describe("MCP against server-everything over stdio", () => {
  it("lists the server's tools as mcp__everything__<tool> with their schemas and read-only hints", async () => {
    const manager = await startManager({ everything });
    const status = statusOf(manager, "everything");
    expect(status).toMatchObject({ state: "connected" });
    const names = manager.allTools().map((tool) => tool.name);
    expect(names).toEqual(
      expect.arrayContaining([
        "mcp__everything__echo",
        "mcp__everything__get-sum",
        "mcp__everything__get-tiny-image",
        "mcp__everything__trigger-long-running-operation",
      ]),
    );
    expect(status?.state === "connected" && status.toolCount).toBe(names.length);
    const echo = manager.allTools().find((tool) => tool.name === "mcp__everything__echo")!;
    expect(echo.inputJsonSchema).toMatchObject({ type: "object", properties: { message: { type: "string" } }, required: ["message"] });
    expect(echo.isConcurrencySafe({})).toBe(true);
    expect(echo.mcpInfo).toEqual({ serverName: "everything", toolName: "echo" });
  });

  it("calls tools through the pipeline: an allow rule runs echo, a deny rule refuses get-sum, no rule asks (denied headless)", async () => {
    const manager = await startManager({ everything });
    const { events } = await runThroughPipeline(
      manager.allTools(),
      [
        {
          content: [
            { type: "tool_use", id: "toolu_echo", name: "mcp__everything__echo", input: { message: "hello MCP" } },
            { type: "tool_use", id: "toolu_sum", name: "mcp__everything__get-sum", input: { a: 1, b: 2 } },
            { type: "tool_use", id: "toolu_img", name: "mcp__everything__get-tiny-image", input: {} },
          ],
        },
      ],
      { allow: ["mcp__everything__echo"], deny: ["mcp__everything__get-sum"] },
    );
    const [echo, sum, image] = results(events);
    expect(echo).toEqual({ type: "tool_result", tool_use_id: "toolu_echo", content: "Echo: hello MCP" });
    expect(sum).toMatchObject({ tool_use_id: "toolu_sum", is_error: true, content: expect.stringContaining("denied by the rule mcp__everything__get-sum") });
    expect(image).toMatchObject({ tool_use_id: "toolu_img", is_error: true });
    const decisions = events.flatMap((event) => (event.type === "permission-decision" ? [[event.toolName, event.behavior, event.reason.type]] : []));
    expect(decisions).toEqual(
      expect.arrayContaining([
        ["mcp__everything__echo", "allow", "rule"],
        ["mcp__everything__get-sum", "deny", "rule"],
        ["mcp__everything__get-tiny-image", "deny", "headless"],
      ]),
    );
    // MCP tools are never read-only to the engine: with no rule the call asks, and headless that is a no.
    expect(events.filter((event) => event.type === "permission-request").map((event) => event.type === "permission-request" && event.toolName)).toEqual([
      "mcp__everything__get-tiny-image",
    ]);
  });

  it("passes an image result through as an image block; a server-wide rule mcp__everything allows every tool", async () => {
    const manager = await startManager({ everything });
    const { events, model } = await runThroughPipeline(manager.allTools(), [toolCall("toolu_img", "mcp__everything__get-tiny-image", {})], {
      allow: ["mcp__everything"],
    });
    const [image] = results(events);
    expect(image?.is_error).toBeUndefined();
    const blocks = image?.content as Array<{ type: string; source?: { media_type: string } }>;
    expect(blocks.map((block) => block.type)).toEqual(["text", "image", "text"]);
    expect(blocks[1]?.source?.media_type).toBe("image/png");
    // The image went up to the model as an image block.
    expect(JSON.stringify(model.requests[1]!.messages.at(-1))).toContain('"media_type":"image/png"');
  });

  it("turns a slow tool past its timeout into a tool error, and the server keeps working", async () => {
    const manager = await startManager({ everything }, { toolTimeoutMs: 500 });
    const started = Date.now();
    const { events } = await runThroughPipeline(
      manager.allTools(),
      [
        toolCall("toolu_slow", "mcp__everything__trigger-long-running-operation", { duration: 10, steps: 2 }),
        toolCall("toolu_echo", "mcp__everything__echo", { message: "still here" }),
      ],
      { allow: ["mcp__everything"] },
    );
    const [slow, echo] = results(events);
    expect(slow).toMatchObject({ is_error: true, content: 'MCP server "everything" timed out after 500 ms while calling trigger-long-running-operation.' });
    expect(echo).toMatchObject({ content: "Echo: still here" });
    expect(Date.now() - started).toBeLessThan(8_000);
  });

  it("cancels a running call when the abort signal fires", async () => {
    const manager = await startManager({ everything });
    const tool = manager.allTools().find((candidate) => candidate.name === "mcp__everything__trigger-long-running-operation")!;
    const controller = new AbortController();
    const context = { ...testContext(), signal: controller.signal, tools: [tool], messages: [] };
    const call = tool.call({ duration: 10, steps: 2 }, context, { toolUseId: "t", assistantMessage: undefined as never }) as AsyncGenerator<unknown, unknown>;
    const started = Date.now();
    setTimeout(() => controller.abort(), 200);
    await expect(call.next()).rejects.toMatchObject({ code: "aborted" });
    expect(Date.now() - started).toBeLessThan(3_000);
  });

  it("turns a call to a server killed mid-session into a tool error, then reconnects", async () => {
    const pidFile = join(dir, "everything.pid");
    const manager = await startManager(
      { everything: { command: "/bin/sh", args: ["-c", `echo $$ > '${pidFile}'; exec '${process.execPath}' '${everythingServer}' stdio`] } },
      { reconnect: { initialDelayMs: 300, maxDelayMs: 1_000, maxAttempts: 5 } },
    );
    const echo = manager.allTools().find((tool) => tool.name === "mcp__everything__echo")!;
    const firstPid = Number((await readFile(pidFile, "utf8")).trim());
    process.kill(firstPid, "SIGKILL");
    await whenServers(manager, () => statusOf(manager, "everything")?.state === "failed");

    const { events } = await runThroughPipeline([echo], [toolCall("toolu_dead", "mcp__everything__echo", { message: "anyone?" })], {
      allow: ["mcp__everything__echo"],
    });
    expect(results(events)[0]).toMatchObject({ is_error: true, content: expect.stringContaining('MCP server "everything" is not connected') });

    await whenServers(manager, () => statusOf(manager, "everything")?.state === "connected");
    expect(Number((await readFile(pidFile, "utf8")).trim())).not.toBe(firstPid);
    const again = await runThroughPipeline([echo], [toolCall("toolu_back", "mcp__everything__echo", { message: "back" })], {
      allow: ["mcp__everything__echo"],
    });
    expect(results(again.events)[0]).toMatchObject({ content: "Echo: back" });
  });

  it("reports a server whose command does not exist as failed, with the reason", async () => {
    const manager = await startManager({ missing: { command: join(dir, "no-such-server") }, everything });
    expect(statusOf(manager, "missing")).toMatchObject({ state: "failed", reason: expect.stringContaining("ENOENT") });
    expect(statusOf(manager, "everything")).toMatchObject({ state: "connected" });
  });

  it("lists resources and prompts, and reads a resource", async () => {
    const manager = await startManager({ everything });
    const resources = await manager.listResources("everything");
    expect(resources.length).toBeGreaterThan(0);
    const first = resources[0]!;
    const read = await manager.readResource("everything", first.uri);
    expect(read.contents[0]?.uri).toBe(first.uri);
    const prompts = await manager.listPrompts("everything");
    expect(prompts.map((prompt) => prompt.name).length).toBeGreaterThan(0);
  });
});

describe("MCP over Streamable HTTP", () => {
  it("connects to server-everything's streamableHttp mode and calls echo", async () => {
    const server = await startHttpEverything();
    http.push(server);
    const manager = await startManager({ "everything http": { type: "http", url: server.url } });
    expect(statusOf(manager, "everything http")).toMatchObject({ state: "connected" });
    const echo = manager.allTools().find((tool) => tool.name === "mcp__everything_http__echo")!;
    const { events } = await runThroughPipeline([echo], [toolCall("toolu_h", "mcp__everything_http__echo", { message: "over http" })], {
      allow: ["mcp__everything_http__echo"],
    });
    expect(results(events)[0]).toMatchObject({ content: "Echo: over http" });
  });

  it("turns a call after the HTTP server died into a tool error", async () => {
    const server = await startHttpEverything();
    http.push(server);
    const manager = await startManager(
      { remote: { type: "http", url: server.url } },
      { reconnect: { initialDelayMs: 60_000, maxDelayMs: 60_000, maxAttempts: 1 } },
    );
    const echo = manager.allTools().find((tool) => tool.name === "mcp__remote__echo")!;
    await server.close();
    const { events } = await runThroughPipeline([echo], [toolCall("toolu_x", "mcp__remote__echo", { message: "x" })], { allow: ["mcp__remote"] });
    expect(results(events)[0]).toMatchObject({ is_error: true });
    await whenServers(manager, () => statusOf(manager, "remote")?.state === "failed");
  });
});

describe("MCP against server-filesystem", () => {
  it("reads a workspace file with read_text_file", async () => {
    const manager = await startManager({ files: { command: process.execPath, args: [filesystemServer, dir] } });
    expect(manager.allTools().map((tool) => tool.name)).toEqual(expect.arrayContaining(["mcp__files__read_text_file", "mcp__files__write_file"]));
    const { events } = await runThroughPipeline(manager.allTools(), [toolCall("toolu_r", "mcp__files__read_text_file", { path: join(dir, "notes.txt") })], {
      allow: ["mcp__files__read_text_file"],
    });
    expect(results(events)[0]).toMatchObject({ content: "alpha\nbeta\n" });
  });
});
