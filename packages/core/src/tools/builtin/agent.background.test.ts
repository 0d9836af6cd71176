import { describe, expect, it } from "vitest";
import { BACKGROUND_AGENTS_SERVICE, BackgroundAgents } from "../../agents/background-agents.ts";
import { SUBAGENT_SERVICE } from "../../agents/service.ts";
import { createSubagentService } from "../../agents/subagent-service.ts";
import { noCompaction, type Compactor } from "../../compact/port.ts";
import { query } from "../../loop/query.ts";
import type { ModelRequest } from "../../model/port.ts";
import type { PermissionGate, PermissionPrompter } from "../../permissions/port.ts";
import type { AgentEvent } from "../../schema/events.ts";
import { collectEvents, createScriptedModel, createTestTool, testContext, testDeps, type ScriptedTurn } from "../../testing/index.ts";
import { createAgentTool } from "./agent.ts";

const text = (value: string): ScriptedTurn => ({ content: [{ type: "text", text: value }] });
const agentCall = (id: string, input: Record<string, unknown>): ScriptedTurn => ({
  content: [{ type: "tool_use", id, name: "Agent", input: { description: `do ${id}`, prompt: `task ${id}`, ...input } }],
});
const isParent = (request: ModelRequest) => request.system[0]?.text === "parent";
const requestText = (request: ModelRequest) => JSON.stringify(request.messages);

function setup(options: {
  route: (request: ModelRequest, counts: { parent: number; sub: number }) => ScriptedTurn;
  awaitBackgroundAgents?: boolean;
  gate?: PermissionGate;
  prompter?: PermissionPrompter;
  createCompactor?: () => Compactor;
}) {
  const counts = { parent: 0, sub: 0 };
  const router = (request: ModelRequest): ScriptedTurn => {
    if (isParent(request)) counts.parent++;
    else counts.sub++;
    return options.route(request, counts);
  };
  const model = createScriptedModel(Array.from({ length: 20 }, () => router));
  const deps = testDeps(model);
  const service = createSubagentService({
    definitions: [],
    deps,
    ...(options.gate ? { gate: options.gate } : {}),
    ...(options.prompter ? { prompter: options.prompter } : {}),
    ...(options.createCompactor ? { createCompactor: options.createCompactor } : {}),
  });
  const background = new BackgroundAgents();
  const scribble = createTestTool({ name: "Scribble", safe: false });
  const run = () =>
    collectEvents(
      query({
        messages: [],
        systemPrompt: ["parent"],
        tools: [createAgentTool({ definitions: service.definitions() }), scribble],
        model: "parent-model",
        signal: new AbortController().signal,
        context: { ...testContext(), services: { [SUBAGENT_SERVICE]: service, [BACKGROUND_AGENTS_SERVICE]: background } },
        ...(options.gate ? { gate: options.gate } : {}),
        ...(options.prompter ? { prompter: options.prompter } : {}),
        ...(options.awaitBackgroundAgents ? { awaitBackgroundAgents: true } : {}),
        deps,
      }),
    );
  return { model, run, background };
}

const toolResultOf = (events: AgentEvent[], id: string) =>
  events.flatMap((event) =>
    event.type === "message" && event.message.type === "user" && Array.isArray(event.message.message.content)
      ? event.message.message.content.filter((block) => block.type === "tool_result" && block.tool_use_id === id)
      : [],
  )[0];

describe("Agent tool: Claude Code's input, model aliases, background runs", () => {
  it("accepts model and run_in_background: false, and resolves the aliases sonnet, opus, haiku and inherit", async () => {
    const calls = [
      ["toolu_1", "opus"],
      ["toolu_2", "haiku"],
      ["toolu_3", "sonnet"],
      ["toolu_4", "inherit"],
    ] as const;
    const { model, run } = setup({
      route: (request, counts) => {
        if (!isParent(request)) return text(`answer from ${request.model}`);
        if (counts.parent === 1) return { content: calls.map(([id, alias]) => agentCall(id, { model: alias, run_in_background: false }).content[0]!) };
        return text("done");
      },
    });
    const { events, terminal } = await run();
    expect(terminal.reason).toBe("completed");
    const subModels = model.requests
      .filter((request) => !isParent(request))
      .map((request) => request.model)
      .sort();
    expect(subModels).toEqual(["claude-haiku-5-5", "claude-opus-5-5", "claude-sonnet-5-5", "test-model"].sort());
    expect(toolResultOf(events, "toolu_1")).toMatchObject({ content: "answer from claude-opus-5-5" });
    expect(toolResultOf(events, "toolu_4")).toMatchObject({ content: "answer from test-model" });
  });

  it("returns at once with the agent id and delivers the result later as a task notification", async () => {
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    const { model, run, background } = setup({
      awaitBackgroundAgents: true,
      route: (request, counts) => {
        if (!isParent(request)) return { ...text("background findings: 7 files"), beforePart: () => held };
        if (counts.parent === 1) return agentCall("toolu_bg", { run_in_background: true });
        if (counts.parent === 2) {
          // The parent went on while the agent still works; only now may the agent answer.
          release();
          return text("I will wait for the agent.");
        }
        return text("The agent found 7 files.");
      },
    });
    const { events, terminal } = await run();
    expect(terminal.reason).toBe("completed");
    const launched = toolResultOf(events, "toolu_bg");
    expect(launched).toMatchObject({ content: expect.stringContaining("Async agent launched successfully") });
    const launchMessage = events.find((event) => event.type === "message" && event.message.type === "user" && event.message.toolUseResult);
    const output = launchMessage?.type === "message" ? (launchMessage.message.toolUseResult as { status: string; agentId: string }) : undefined;
    expect(output?.status).toBe("async_launched");
    expect(output?.agentId).toMatch(/^a/);

    const parentRequests = model.requests.filter(isParent);
    expect(parentRequests).toHaveLength(3);
    expect(requestText(parentRequests[1]!)).not.toContain("task-notification");
    const last = requestText(parentRequests[2]!);
    expect(last).toContain(`<task-id>${output!.agentId}</task-id>`);
    expect(last).toContain("<status>completed</status>");
    expect(last).toContain("background findings: 7 files");
    expect(background.running()).toEqual([]);
  });

  it("without awaiting, ends the turn while the agent runs and keeps its notification for the next turn", async () => {
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    const { run, background } = setup({
      route: (request, counts) => {
        if (!isParent(request)) return { ...text("late answer"), beforePart: () => held };
        return counts.parent === 1 ? agentCall("toolu_bg", { run_in_background: true }) : text("Started it.");
      },
    });
    const { terminal } = await run();
    expect(terminal.reason).toBe("completed");
    expect(background.running()).toHaveLength(1);
    const finished = new Promise<void>((resolve) => background.onFinished(resolve));
    release();
    await finished;
    expect(background.takeNotifications()).toEqual([expect.objectContaining({ status: "completed", text: "late answer" })]);
  });

  it("denies a background agent's permission questions instead of asking", async () => {
    const asked: string[] = [];
    const gate: PermissionGate = { check: async () => ({ behavior: "ask", reason: { type: "default", reason: "no rule" } }) };
    const prompter: PermissionPrompter = {
      ask: async (request) => {
        asked.push(request.toolName);
        return { behavior: "allow", scope: "once" };
      },
    };
    const { model, run } = setup({
      awaitBackgroundAgents: true,
      gate,
      prompter,
      route: (request, counts) => {
        if (!isParent(request))
          return counts.sub === 1 ? { content: [{ type: "tool_use", id: "toolu_s", name: "Scribble", input: { value: "x" } }] } : text("could not write");
        if (counts.parent === 1) return agentCall("toolu_bg", { run_in_background: true });
        return text("ok");
      },
    });
    await run();
    expect(asked).toEqual(["Agent"]);
    const subSecond = model.requests.filter((request) => !isParent(request))[1]!;
    expect(requestText(subSecond)).toContain("not available to a background agent");
  });

  it("gives every subagent run its own compactor", async () => {
    const made: string[][] = [];
    const createCompactor = (): Compactor => {
      const stages: string[] = [];
      made.push(stages);
      return { ...noCompaction, snip: async () => (stages.push("snip"), null) };
    };
    const { run } = setup({
      createCompactor,
      route: (request, counts) =>
        !isParent(request) ? text("sub") : counts.parent === 1 ? { content: [agentCall("a1", {}).content[0]!, agentCall("a2", {}).content[0]!] } : text("done"),
    });
    await run();
    expect(made).toHaveLength(2);
    expect(made.every((stages) => stages.length === 1)).toBe(true);
  });
});
