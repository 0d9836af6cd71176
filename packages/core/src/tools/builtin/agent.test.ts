import { describe, expect, it } from "vitest";
import { generalPurposeAgent, type AgentDefinition } from "../../agents/definition.ts";
import { SUBAGENT_SERVICE } from "../../agents/service.ts";
import { createSubagentService, type SubagentServiceOptions } from "../../agents/subagent-service.ts";
import { emptyHookOutcome, type HookDispatcher, type HookEventName } from "../../hooks/port.ts";
import { query } from "../../loop/query.ts";
import type { ModelRequest } from "../../model/port.ts";
import type { PermissionGate, PermissionPrompter } from "../../permissions/port.ts";
import type { AgentEvent } from "../../schema/events.ts";
import type { ConversationMessage } from "../../schema/messages.ts";
import type { TranscriptSink } from "../../session/port.ts";
import { collectEvents, createScriptedModel, createTestTool, testContext, testDeps, type ScriptedTurn, type ToolLogEntry } from "../../testing/index.ts";
import type { Tool } from "../tool.ts";
import { createAgentTool } from "./agent.ts";

type Recorded = { agentId: string; messages: ConversationMessage[]; closed: boolean };

function memoryTranscripts() {
  const runs: Recorded[] = [];
  const create: SubagentServiceOptions["createTranscript"] = ({ agentId, sessionId }) => {
    const record: Recorded = { agentId, messages: [], closed: false };
    runs.push(record);
    const sink: TranscriptSink = {
      sessionId,
      appendMessage: async (message) => void record.messages.push(message),
      appendTombstone: async () => undefined,
      appendHookRuns: async () => undefined,
      flush: async () => undefined,
      close: async () => void (record.closed = true),
    };
    return { sink, path: `/projects/x/${sessionId}/subagents/agent-${agentId}.jsonl` };
  };
  return { runs, create };
}

const text = (value: string): ScriptedTurn => ({ content: [{ type: "text", text: value }] });
const agentCall = (id: string, prompt: string, extra: Record<string, unknown> = {}): ScriptedTurn => ({
  content: [{ type: "tool_use", id, name: "Agent", input: { description: `do ${id}`, prompt, ...extra } }],
});
const isSubagentRequest = (request: ModelRequest) => request.system[0]?.text !== "parent";

function setup(options: {
  turns: Array<ScriptedTurn | ((request: ModelRequest) => ScriptedTurn)>;
  definitions?: AgentDefinition[];
  gate?: PermissionGate;
  prompter?: PermissionPrompter;
  hooks?: HookDispatcher;
  tools?: Tool[];
}) {
  const model = createScriptedModel(options.turns);
  const deps = testDeps(model);
  const transcripts = memoryTranscripts();
  const log: ToolLogEntry[] = [];
  const lookup = createTestTool({ name: "Lookup", safe: true, log, run: (input) => `found ${input.value}` });
  const write = createTestTool({ name: "Scribble", safe: false, log });
  const service = createSubagentService({
    definitions: options.definitions ?? [],
    deps,
    environmentPrompt: ["<env>cwd: /workspace</env>"],
    createTranscript: transcripts.create,
    ...(options.gate ? { gate: options.gate } : {}),
    ...(options.prompter ? { prompter: options.prompter } : {}),
    ...(options.hooks ? { hooks: options.hooks } : {}),
  });
  const agent = createAgentTool({ definitions: service.definitions() });
  const tools = options.tools ?? [agent, lookup, write];
  const controller = new AbortController();
  const base = testContext();
  const run = () =>
    collectEvents(
      query({
        messages: [],
        systemPrompt: ["parent"],
        tools,
        model: "parent-model",
        signal: controller.signal,
        context: { ...base, services: { [SUBAGENT_SERVICE]: service } },
        ...(options.gate ? { gate: options.gate } : {}),
        ...(options.prompter ? { prompter: options.prompter } : {}),
        ...(options.hooks ? { hooks: options.hooks } : {}),
        deps,
      }),
    );
  return { model, transcripts, log, controller, run };
}

const toolResults = (events: AgentEvent[]) =>
  events.flatMap((event) =>
    event.type === "message" && event.message.type === "user" && Array.isArray(event.message.message.content)
      ? event.message.message.content.filter((block) => block.type === "tool_result")
      : [],
  );

describe("Agent tool", () => {
  it("runs a subagent with fresh messages and the parent's tools minus Agent; its final text is the tool result", async () => {
    const { model, transcripts, log, run } = setup({
      turns: [
        agentCall("toolu_a", "Find the answer"),
        {
          content: [
            { type: "tool_use", id: "toolu_l1", name: "Lookup", input: { value: "a" } },
            { type: "tool_use", id: "toolu_l2", name: "Lookup", input: { value: "b" } },
          ],
        },
        text("The answer is 42."),
        text("The agent says 42."),
      ],
    });
    const { events, terminal } = await run();
    expect(terminal.reason).toBe("completed");

    const subRequest = model.requests[1]!;
    expect(subRequest.system.map((block) => block.text)).toEqual([generalPurposeAgent.systemPrompt, "<env>cwd: /workspace</env>"]);
    expect(subRequest.messages).toEqual([{ role: "user", content: [{ type: "text", text: "Find the answer" }] }]);
    expect(subRequest.tools?.map((tool) => tool.name)).toEqual(["Lookup", "Scribble"]);
    expect(subRequest.model).toBe("test-model");
    expect(log.filter((entry) => entry.event === "start").map((entry) => entry.id)).toEqual(["toolu_l1", "toolu_l2"]);

    const [result] = toolResults(events);
    expect(result).toEqual({ type: "tool_result", tool_use_id: "toolu_a", content: "The answer is 42." });
    const parentResult = events.find((event) => event.type === "message" && event.message.type === "user");
    expect(parentResult?.type === "message" && parentResult.message.toolUseResult).toMatchObject({
      status: "completed",
      agentType: "general-purpose",
      totalToolUseCount: 2,
      prompt: "Find the answer",
    });

    const progress = events.flatMap((event) => (event.type === "tool-progress" ? [event] : []));
    expect(progress.every((event) => event.toolUseId === "toolu_a" && event.name === "Agent")).toBe(true);
    const forwarded = progress.map((event) => (event.data as { event: AgentEvent }).event.type);
    expect(forwarded.filter((type) => type === "tool-start")).toHaveLength(2);
    expect(forwarded).not.toContain("text-delta");
    expect(forwarded.at(-1)).toBe("result");

    expect(transcripts.runs).toHaveLength(1);
    const sidechain = transcripts.runs[0]!;
    expect(sidechain.closed).toBe(true);
    expect(sidechain.agentId).toMatch(/^a[0-9a-z-]{1,16}$/);
    expect(sidechain.messages.map((message) => message.type)).toEqual(["user", "assistant", "user", "user", "assistant"]);
    expect(sidechain.messages.every((message) => message.isSidechain === true && message.agentId === sidechain.agentId)).toBe(true);
    expect(sidechain.messages[0]!.parentUuid).toBeNull();
    // The parent's own messages stay on the main chain.
    const parentMessages = events.flatMap((event) => (event.type === "message" ? [event.message] : []));
    expect(parentMessages.every((message) => message.isSidechain === undefined)).toBe(true);
  });

  it("runs parallel Agent calls concurrently", async () => {
    const arrived = new Set<string>();
    let bothArrived: () => void = () => undefined;
    const both = new Promise<void>((resolve) => (bothArrived = resolve));
    let overlapped = false;
    const sub = (request: ModelRequest): ScriptedTurn => {
      const prompt = JSON.stringify(request.messages[0]);
      const name = prompt.includes("task A") ? "A" : "B";
      arrived.add(name);
      if (arrived.size === 2) bothArrived();
      return {
        ...text(`answer ${name}`),
        // Each stream waits for the other subagent's request: serial runs would never both arrive.
        beforePart: async (_part, index) => {
          if (index !== 0) return;
          await Promise.race([both.then(() => (overlapped = true)), new Promise((resolve) => setTimeout(resolve, 2_000))]);
        },
      };
    };
    const { run } = setup({
      turns: [{ content: [...agentCall("toolu_a", "task A").content, ...agentCall("toolu_b", "task B").content] }, sub, sub, text("both done")],
    });
    const { events } = await run();
    expect(overlapped).toBe(true);
    expect(toolResults(events).map((block) => [block.tool_use_id, block.content])).toEqual([
      ["toolu_a", "answer A"],
      ["toolu_b", "answer B"],
    ]);
  });

  it("stops the subagent when the parent is aborted, and closes its transcript", async () => {
    const holder: { controller?: AbortController } = {};
    const { run, controller, transcripts } = setup({
      turns: [
        agentCall("toolu_a", "long task"),
        {
          ...text("never finished"),
          beforePart: () => {
            holder.controller?.abort();
          },
        },
      ],
    });
    holder.controller = controller;
    const { events, terminal } = await run();
    expect(terminal.reason).toBe("aborted_tools");
    const [result] = toolResults(events);
    expect(result).toMatchObject({ tool_use_id: "toolu_a", is_error: true });
    expect(transcripts.runs[0]?.closed).toBe(true);
  });

  it("fires SubagentStop (not Stop or UserPromptSubmit) for the subagent, with its id and type", async () => {
    const fired: Array<{ event: HookEventName; input: Record<string, unknown>; matchValue: string | undefined }> = [];
    const hooks: HookDispatcher = {
      async dispatch(event, input, options) {
        fired.push({ event, input, matchValue: options.matchValue });
        return emptyHookOutcome();
      },
    };
    const { run, transcripts } = setup({ hooks, turns: [agentCall("toolu_a", "hi"), text("sub answer"), text("parent answer")] });
    await run();
    const lifecycle = fired.filter((entry) => ["Stop", "SubagentStop", "UserPromptSubmit"].includes(entry.event));
    expect(lifecycle.map((entry) => entry.event)).toEqual(["SubagentStop", "Stop"]);
    expect(lifecycle[0]).toEqual({
      event: "SubagentStop",
      input: {
        stop_hook_active: false,
        agent_id: transcripts.runs[0]!.agentId,
        agent_type: "general-purpose",
        agent_transcript_path: expect.stringContaining("/subagents/agent-"),
      },
      matchValue: "general-purpose",
    });
    expect(fired.filter((entry) => entry.event === "PreToolUse").map((entry) => entry.matchValue)).toEqual(["Agent"]);
  });

  it("puts the subagent's tool calls through the parent's permission gate and prompter", async () => {
    const asked: string[] = [];
    const gate: PermissionGate = {
      async check({ tool }) {
        if (tool.name === "Scribble") return { behavior: "ask", reason: { type: "default", reason: "writes" }, message: "Allow Scribble?" };
        if (tool.name === "Lookup") return { behavior: "deny", reason: { type: "default", reason: "no lookups" }, message: "Lookup is denied." };
        return { behavior: "allow", reason: { type: "default", reason: "ok" } };
      },
    };
    const prompter: PermissionPrompter = {
      async ask(request) {
        asked.push(request.toolName);
        return { behavior: "deny", feedback: "not now" };
      },
    };
    const { run, transcripts } = setup({
      gate,
      prompter,
      turns: [
        agentCall("toolu_a", "try things"),
        {
          content: [
            { type: "tool_use", id: "toolu_l", name: "Lookup", input: { value: "a" } },
            { type: "tool_use", id: "toolu_s", name: "Scribble", input: { value: "b" } },
          ],
        },
        text("I was not allowed."),
        text("ok"),
      ],
    });
    const { events } = await run();
    expect(asked).toEqual(["Scribble"]);
    const subResults = transcripts.runs[0]!.messages.flatMap((message) =>
      message.type === "user" && Array.isArray(message.message.content) ? message.message.content : [],
    );
    expect(subResults).toEqual([
      expect.objectContaining({ tool_use_id: "toolu_l", is_error: true, content: "Lookup is denied." }),
      expect.objectContaining({ tool_use_id: "toolu_s", is_error: true }),
    ]);
    const requests = events.flatMap((event) => (event.type === "tool-progress" ? [(event.data as { event: AgentEvent }).event.type] : []));
    expect(requests).toContain("permission-request");
  });

  it("gives an agent only the tools its definition names, its own system prompt and model", async () => {
    const reviewer: AgentDefinition = {
      agentType: "reviewer",
      description: "Reviews",
      tools: ["Lookup", "Agent", "Missing"],
      model: "claude-haiku-9",
      systemPrompt: "You review.",
      source: "project",
    };
    const { model, run } = setup({
      definitions: [reviewer],
      turns: [agentCall("toolu_a", "review", { subagent_type: "reviewer" }), text("looks fine"), text("ok")],
    });
    await run();
    const subRequest = model.requests.find(isSubagentRequest)!;
    expect(subRequest.tools?.map((tool) => tool.name)).toEqual(["Lookup"]);
    expect(subRequest.system[0]?.text).toBe("You review.");
    expect(subRequest.model).toBe("claude-haiku-9");
  });

  it("refuses an unknown subagent_type with the list of agents, and works without a service only as an error", async () => {
    const { run } = setup({ turns: [agentCall("toolu_a", "x", { subagent_type: "nope" }), text("ok")] });
    const [unknown] = toolResults((await run()).events);
    expect(unknown).toMatchObject({ is_error: true, content: "Agent type 'nope' not found. Available agents: general-purpose" });

    const model = createScriptedModel([agentCall("toolu_b", "x"), text("ok")]);
    const { events } = await collectEvents(
      query({
        messages: [],
        systemPrompt: ["parent"],
        tools: [createAgentTool()],
        model: "m",
        signal: new AbortController().signal,
        context: testContext(),
        deps: testDeps(model),
      }),
    );
    expect(toolResults(events)[0]).toMatchObject({ is_error: true, content: "Subagents are not available in this session." });
  });

  it("reports a subagent whose model failed as an error result", async () => {
    const { ModelError } = await import("../../model/port.ts");
    const { run } = setup({
      turns: [agentCall("toolu_a", "x"), { content: [], error: new ModelError("invalid_request", "bad request from sub") }, text("ok")],
    });
    const [result] = toolResults((await run()).events);
    expect(result).toMatchObject({ is_error: true, content: "The agent stopped with an error: bad request from sub" });
  });
});
