import { afterEach, describe, expect, it } from "vitest";
import { query } from "../loop/query.ts";
import { collectEvents, createScriptedModel, testContext, testDeps } from "../testing/index.ts";
import type { ConversationMessage } from "../schema/messages.ts";
import type { Tool } from "../tools/tool.ts";
import { McpManager } from "./manager.ts";
import { createInMemoryServers } from "./test-server.ts";
import { discoveredToolNames, estimateToolTokens, planToolExposure, searchTools, TOOL_SEARCH_NAME, toolsWithDiscovered } from "./tool-search.ts";

const managers: McpManager[] = [];
afterEach(async () => {
  await Promise.all(managers.splice(0).map((manager) => manager.close()));
});

async function startedManager(): Promise<McpManager> {
  const servers = createInMemoryServers();
  const manager = new McpManager({
    servers: [{ name: "test srv", source: "dynamic", config: { command: "x" } }],
    trusted: true,
    transportFactory: servers.factory,
    clientInfo: { name: "t", version: "0" },
    env: {},
    sleep: async () => undefined,
  });
  managers.push(manager);
  await manager.start();
  return manager;
}

const names = (tools: readonly Tool[]) => tools.map((tool) => tool.name);

describe("tool search", () => {
  it("sends every MCP schema while they fit in the share of the context window, else defers them all", async () => {
    const manager = await startedManager();
    const all = manager.allTools();
    const total = all.reduce((sum, tool) => sum + estimateToolTokens(tool), 0);
    expect(total).toBeGreaterThan(100);
    expect(planToolExposure(all, { contextWindowTokens: total * 10 }).deferred).toEqual([]);
    const tight = planToolExposure(all, { contextWindowTokens: total * 10 - 10 });
    expect(tight.exposed).toEqual([]);
    expect(names(tight.deferred)).toEqual(names(all));
    expect(names(manager.toolSet({ contextWindowTokens: 200_000 }).tools)).toEqual(names(all));
    expect(names(manager.toolSet({ contextWindowTokens: 1_000 }).tools)).toEqual([TOOL_SEARCH_NAME]);
  });

  it("finds tools by keywords in names and descriptions, or by exact name with select:", async () => {
    const all = (await startedManager()).allTools();
    expect(names(searchTools(all, "echo", 5))).toEqual(["mcp__test_srv__echo"]);
    expect(names(searchTools(all, "image picture", 5))).toEqual(["mcp__test_srv__image"]);
    expect(names(searchTools(all, "select:mcp__test_srv__fail,mcp__test_srv__slow", 5))).toEqual(["mcp__test_srv__fail", "mcp__test_srv__slow"]);
    expect(searchTools(all, "kubernetes", 5)).toEqual([]);
  });

  it("loads the tools it finds: the next request carries their schemas and the model can call them", async () => {
    const manager = await startedManager();
    const { tools } = manager.toolSet({ contextWindowTokens: 1_000 });
    const model = createScriptedModel([
      { content: [{ type: "tool_use", id: "toolu_s", name: TOOL_SEARCH_NAME, input: { query: "echo" } }] },
      { content: [{ type: "tool_use", id: "toolu_e", name: "mcp__test_srv__echo", input: { message: "found you" } }] },
      { content: [{ type: "text", text: "done" }] },
    ]);
    const { events } = await collectEvents(
      query({ messages: [], systemPrompt: ["s"], tools, model: "m", signal: new AbortController().signal, context: testContext(), deps: testDeps(model) }),
    );
    const requestTools = model.requests.map((request) => (request.tools ?? []).map((tool) => tool.name));
    expect(requestTools[0]).toEqual([TOOL_SEARCH_NAME]);
    expect(requestTools[1]).toEqual([TOOL_SEARCH_NAME, "mcp__test_srv__echo"]);
    expect(model.requests[1]!.tools![1]!.input_schema).toMatchObject({ properties: { message: { type: "string" } } });
    expect(JSON.stringify(model.requests[1]!.tools![0]!.description)).toContain("mcp__test_srv__write_note");
    const results = events.flatMap((event) => (event.type === "message" && event.message.type === "user" ? [event.message] : []));
    expect(results[0]!.toolUseResult).toEqual({ query: "echo", matches: ["mcp__test_srv__echo"], totalDeferredTools: 8 });
    expect(JSON.stringify(results[1]!.message.content)).toContain("Echo: found you");

    // A later prompt (or a resumed session) gets the loaded tools back from the conversation.
    const history: ConversationMessage[] = events.flatMap((event) => (event.type === "message" ? [event.message] : []));
    expect([...discoveredToolNames(history)]).toEqual(["mcp__test_srv__echo"]);
    expect(names(manager.toolSet({ contextWindowTokens: 1_000, history }).tools)).toEqual([TOOL_SEARCH_NAME, "mcp__test_srv__echo"]);
    expect(names(toolsWithDiscovered([], manager.allTools(), []))).toEqual([]);
  });

  it("says so when nothing matches, and loads nothing", async () => {
    const manager = await startedManager();
    const { tools } = manager.toolSet({ contextWindowTokens: 1_000 });
    const model = createScriptedModel([
      { content: [{ type: "tool_use", id: "toolu_s", name: TOOL_SEARCH_NAME, input: { query: "kubernetes" } }] },
      { content: [{ type: "text", text: "no luck" }] },
    ]);
    const { events } = await collectEvents(
      query({ messages: [], systemPrompt: ["s"], tools, model: "m", signal: new AbortController().signal, context: testContext(), deps: testDeps(model) }),
    );
    expect(model.requests[1]!.tools!.map((tool) => tool.name)).toEqual([TOOL_SEARCH_NAME]);
    const result = events.flatMap((event) => (event.type === "message" && event.message.type === "user" ? [event.message.message.content] : []))[0];
    expect(result).toEqual([
      { type: "tool_result", tool_use_id: "toolu_s", content: 'No tools matched "kubernetes". 8 tools can be loaded; try other keywords or "select:<name>".' },
    ]);
  });
});
