import { afterEach, describe, expect, it } from "vitest";
import { createInitialAppState, type McpServerStatus } from "../state/app-state.ts";
import { createStore } from "../state/store.ts";
import { testContext } from "../testing/harness.ts";
import type { Tool, ToolProgress, ToolResult, ToolUseContext } from "../tools/tool.ts";
import type { McpServerEntry } from "./config.ts";
import { McpManager, type McpManagerOptions } from "./manager.ts";
import { createInMemoryServers, TINY_PNG } from "./test-server.ts";

const managers: McpManager[] = [];
afterEach(async () => {
  await Promise.all(managers.splice(0).map((manager) => manager.close()));
});

const entry = (name: string, source: McpServerEntry["source"] = "dynamic"): McpServerEntry => ({ name, source, config: { command: "test-server" } });

function setup(options: Partial<McpManagerOptions> & { servers?: McpServerEntry[]; failConnects?: () => boolean } = {}) {
  const servers = createInMemoryServers(options.failConnects ? { failConnects: options.failConnects } : {});
  const store = createStore(createInitialAppState({ model: "m" }));
  const manager = new McpManager({
    servers: options.servers ?? [entry("test srv")],
    trusted: true,
    transportFactory: servers.factory,
    clientInfo: { name: "cairn-test", version: "0" },
    env: {},
    setAppState: store.setState,
    sleep: async () => undefined,
    ...options,
  });
  managers.push(manager);
  return { manager, servers, store };
}

function until(manager: McpManager, condition: () => boolean): Promise<void> {
  return new Promise((resolve) => {
    if (condition()) return resolve();
    const stop = manager.subscribe(() => {
      if (!condition()) return;
      stop();
      resolve();
    });
  });
}

const statusOf = (manager: McpManager, name: string): McpServerStatus | undefined => manager.servers().find((server) => server.name === name)?.status;

async function run(tool: Tool, input: unknown, signal = new AbortController().signal): Promise<{ result: ToolResult; progress: unknown[] }> {
  const context: ToolUseContext = { ...testContext(), signal, tools: [tool], messages: [] };
  const called = tool.call(input, context, { toolUseId: "toolu_1", assistantMessage: undefined as never });
  const progress: unknown[] = [];
  if (!(Symbol.asyncIterator in called)) return { result: await called, progress };
  while (true) {
    const step = await (called as AsyncGenerator<ToolProgress, ToolResult>).next();
    if (step.done) return { result: step.value, progress };
    progress.push(step.value.data);
  }
}

const toolNamed = (manager: McpManager, name: string): Tool => {
  const tool = manager.allTools().find((candidate) => candidate.name === name);
  if (!tool)
    throw new Error(
      `no tool ${name}: ${manager
        .allTools()
        .map((known) => known.name)
        .join(", ")}`,
    );
  return tool;
};

describe("McpManager", () => {
  it("connects, publishes each status into app state and exposes mcp__<server>__<tool> tools", async () => {
    const { manager, store } = setup();
    const seen: string[] = [];
    store.subscribe(() => seen.push(store.getState().mcp.servers["test srv"]?.state ?? "none"));
    await manager.start();
    expect(seen).toEqual(["connecting", "connected"]);
    expect(store.getState().mcp.servers["test srv"]).toEqual({ state: "connected", toolCount: 8 });
    const echo = toolNamed(manager, "mcp__test_srv__echo");
    expect(echo.mcpInfo).toEqual({ serverName: "test_srv", toolName: "echo" });
    expect(echo.inputJsonSchema).toMatchObject({ type: "object", properties: { message: { type: "string" } }, required: ["message"] });
    expect(echo.isReadOnly({})).toBe(true);
    expect(echo.isConcurrencySafe({})).toBe(true);
    const write = toolNamed(manager, "mcp__test_srv__write_note");
    expect(write.isReadOnly({})).toBe(false);
    expect(write.isConcurrencySafe({})).toBe(false);
    expect(echo.inputSchema.safeParse({ message: "hi", extra: 1 }).data).toEqual({ message: "hi", extra: 1 });
    expect(echo.inputSchema.safeParse("not an object").success).toBe(false);
  });

  it("calls tools: text, is_error results, images and embedded resources", async () => {
    const { manager } = setup();
    await manager.start();
    expect((await run(toolNamed(manager, "mcp__test_srv__echo"), { message: "hello" })).result).toEqual({
      output: "Echo: hello",
      content: "Echo: hello",
      isError: false,
    });
    expect((await run(toolNamed(manager, "mcp__test_srv__fail"), {})).result).toMatchObject({ content: "the widget is broken", isError: true });
    const image = (await run(toolNamed(manager, "mcp__test_srv__image"), {})).result;
    expect(image.content).toEqual([
      { type: "text", text: "Here is the image:" },
      { type: "image", source: { type: "base64", media_type: "image/png", data: TINY_PNG } },
    ]);
    expect((await run(toolNamed(manager, "mcp__test_srv__resource"), {})).result.content).toBe("[Resource from test srv at test://notes/1]\nnote one");
  });

  it("turns the server's own input validation error into an is_error result", async () => {
    const { manager } = setup();
    await manager.start();
    const { result } = await run(toolNamed(manager, "mcp__test_srv__echo"), { message: 42 });
    expect(result.isError).toBe(true);
    expect(String(result.content)).toMatch(/message/);
  });

  it("streams the server's progress notifications as tool progress", async () => {
    const { manager } = setup();
    await manager.start();
    const { result, progress } = await run(toolNamed(manager, "mcp__test_srv__progress"), { steps: 3 });
    expect(result.content).toBe("done");
    expect(progress).toEqual([1, 2, 3].map((step) => ({ type: "mcp-progress", server: "test srv", progress: step, total: 3, message: `step ${step}` })));
  });

  it("ends a call that passes the timeout with an is_error result", async () => {
    const { manager } = setup({ toolTimeoutMs: 50 });
    await manager.start();
    const { result } = await run(toolNamed(manager, "mcp__test_srv__slow"), { ms: 5_000 });
    expect(result).toMatchObject({ isError: true, content: 'MCP server "test srv" timed out after 50 ms while calling slow.' });
  });

  it("honours a per-server timeout in the config", async () => {
    const { manager } = setup({ servers: [{ name: "s", source: "dynamic", config: { command: "x", timeout: 30 } }] });
    await manager.start();
    expect((await run(toolNamed(manager, "mcp__s__slow"), { ms: 5_000 })).result.content).toContain("timed out after 30 ms");
  });

  it("cancels a call when the abort signal fires", async () => {
    const { manager } = setup();
    await manager.start();
    const controller = new AbortController();
    const pending = run(toolNamed(manager, "mcp__test_srv__slow"), { ms: 5_000 }, controller.signal);
    setTimeout(() => controller.abort(), 20);
    await expect(pending).rejects.toMatchObject({ code: "aborted" });
  });

  it("turns a call to a dead server into a tool error, then reconnects with backoff", async () => {
    let openGate: () => void = () => undefined;
    const delays: number[] = [];
    const { manager, servers } = setup({
      reconnect: { initialDelayMs: 100, maxDelayMs: 1_000, maxAttempts: 3 },
      sleep: (ms) => {
        delays.push(ms);
        return new Promise<void>((resolve) => (openGate = resolve));
      },
    });
    await manager.start();
    const echo = toolNamed(manager, "mcp__test_srv__echo");
    await servers.kill("test srv");
    await until(manager, () => statusOf(manager, "test srv")?.state === "failed");
    const dead = (await run(echo, { message: "x" })).result;
    expect(dead.isError).toBe(true);
    expect(dead.content).toBe('MCP server "test srv" is not connected (the connection closed). Cairn is reconnecting to it; try again in a moment.');
    expect(delays).toEqual([100]);
    openGate();
    await until(manager, () => statusOf(manager, "test srv")?.state === "connected");
    expect(servers.connects).toBe(2);
    expect((await run(echo, { message: "back" })).result.content).toBe("Echo: back");
  });

  it("gives up after the bounded number of reconnect attempts, and tries again when called later", async () => {
    let failing = false;
    const delays: number[] = [];
    const { manager, servers } = setup({
      failConnects: () => failing,
      reconnect: { initialDelayMs: 10, maxDelayMs: 25, maxAttempts: 3 },
      sleep: async (ms) => {
        delays.push(ms);
      },
    });
    await manager.start();
    failing = true;
    await servers.kill("test srv");
    await until(manager, () => /gave up/.test(JSON.stringify(statusOf(manager, "test srv"))));
    expect(delays).toEqual([10, 20, 25]);
    expect(statusOf(manager, "test srv")).toEqual({ state: "failed", reason: "gave up after 3 reconnect attempts: spawn test-server ENOENT" });
    failing = false;
    const echo = toolNamed(manager, "mcp__test_srv__echo");
    expect((await run(echo, { message: "x" })).result.isError).toBe(true);
    await until(manager, () => statusOf(manager, "test srv")?.state === "connected");
    expect((await run(echo, { message: "again" })).result.content).toBe("Echo: again");
  });

  it("reports a server that cannot start as failed with the reason, and keeps the others", async () => {
    const { manager } = setup({
      servers: [entry("broken"), entry("ok")],
      failConnects: (() => {
        let first = true;
        return () => {
          const fail = first;
          first = false;
          return fail;
        };
      })(),
    });
    await manager.start();
    expect(statusOf(manager, "broken")).toEqual({ state: "failed", reason: "spawn test-server ENOENT" });
    expect(statusOf(manager, "ok")).toMatchObject({ state: "connected" });
    expect(manager.allTools().every((tool) => tool.name.startsWith("mcp__ok__"))).toBe(true);
  });

  it("starts project servers only once the workspace is trusted", async () => {
    const { manager, store, servers } = setup({ trusted: false, servers: [entry("proj", "project"), entry("mine", "userSettings")] });
    await manager.start();
    expect(store.getState().mcp.servers).toEqual({ mine: { state: "connected", toolCount: 8 }, proj: { state: "disabled" } });
    expect(servers.connects).toBe(1);
    await manager.setTrusted(true);
    expect(store.getState().mcp.servers.proj).toEqual({ state: "connected", toolCount: 8 });
  });

  it("lists and reads resources and prompts for the UI", async () => {
    const { manager } = setup();
    await manager.start();
    expect(await manager.listResources("test srv")).toEqual([{ name: "notes", uri: "test://notes/1", description: "The first note", mimeType: "text/plain" }]);
    expect((await manager.readResource("test srv", "test://notes/1")).contents).toEqual([{ uri: "test://notes/1", text: "note one" }]);
    const prompts = await manager.listPrompts("test srv");
    expect(prompts.map((prompt) => [prompt.name, prompt.arguments?.map((argument) => argument.name)])).toEqual([["review", ["path"]]]);
    expect((await manager.getPrompt("test srv", "review", { path: "a.ts" })).messages[0]?.content).toEqual({ type: "text", text: "Review a.ts" });
    await expect(manager.listPrompts("nope")).rejects.toMatchObject({ code: "unknown_server" });
  });

  it("reports unset variables in a server's config as a problem", () => {
    const { manager } = setup({ servers: [{ name: "s", source: "dynamic", config: { command: "${MISSING_BIN}" } }] });
    expect(manager.problems).toEqual([{ source: "dynamic", file: "", server: "s", message: "environment variable not set: MISSING_BIN" }]);
  });
});
