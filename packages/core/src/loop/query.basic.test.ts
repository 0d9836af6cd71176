import { describe, expect, it } from "vitest";
import { collectEvents, createScriptedModel, createTestTool, eventsOf, testDeps } from "../testing/index.ts";
import { baseParams } from "./query-test-params.ts";
import { query } from "./query.ts";

describe("query: text and tool turns", () => {
  it("streams a text-only turn and completes", async () => {
    const model = createScriptedModel([{ content: [{ type: "text", text: "Hello there, friend." }] }]);
    const { events, terminal } = await collectEvents(query(baseParams({ deps: testDeps(model) })));
    expect(terminal).toEqual({ reason: "completed", turnCount: 1 });
    const deltas = eventsOf(events, "text-delta").map((event) => event.text);
    expect(deltas.length).toBeGreaterThan(1);
    expect(deltas.join("")).toBe("Hello there, friend.");
    const [assistant] = eventsOf(events, "message");
    expect(assistant?.message.type).toBe("assistant");
    expect(assistant?.message.parentUuid).toBe("prompt-1");
    expect(events.at(-1)?.type).toBe("result");
    expect(model.requests).toHaveLength(1);
    expect(model.requests[0]!.messages).toEqual([{ role: "user", content: [{ type: "text", text: "hello" }] }]);
  });

  it("runs a tool, sends its result back, and continues to the next turn", async () => {
    const echo = createTestTool({ name: "Echo", safe: true });
    const model = createScriptedModel([
      {
        content: [
          { type: "text", text: "Let me check." },
          { type: "tool_use", id: "toolu_1", name: "Echo", input: { value: "x" } },
        ],
      },
      { content: [{ type: "text", text: "Done." }] },
    ]);
    const { events, terminal } = await collectEvents(query(baseParams({ deps: testDeps(model), tools: [echo] })));
    expect(terminal.reason).toBe("completed");
    expect(terminal.turnCount).toBe(2);
    const second = model.requests[1]!;
    expect(second.messages).toHaveLength(3);
    const toolResult = second.messages[2]!.content;
    expect(toolResult).toEqual([{ type: "tool_result", tool_use_id: "toolu_1", content: "Echo:x" }]);
    const messages = eventsOf(events, "message").map((event) => event.message);
    expect(messages.map((message) => message.type)).toEqual(["assistant", "user", "assistant"]);
    // One linear chain: each message points at the one before it.
    expect(messages[1]!.parentUuid).toBe(messages[0]!.uuid);
    expect(messages[2]!.parentUuid).toBe(messages[1]!.uuid);
    const [end] = eventsOf(events, "tool-end");
    expect(end?.record).toMatchObject({ toolUseId: "toolu_1", name: "Echo", isError: false, permissionWaitMs: 0 });
    expect(end!.record.endedAt).toBeGreaterThanOrEqual(end!.record.startedAt);
    const result = eventsOf(events, "result")[0]!;
    expect(result.numTurns).toBe(2);
    expect(result.usage.outputTokens).toBe(10);
  });

  it("assembles thinking with its signature and sends it back on the next turn", async () => {
    const echo = createTestTool({ name: "Echo", safe: true });
    const model = createScriptedModel([
      {
        content: [
          { type: "thinking", thinking: "I should echo.", signature: "sig-1" },
          { type: "tool_use", id: "toolu_1", name: "Echo", input: { value: "y" } },
        ],
      },
      { content: [{ type: "text", text: "ok" }] },
    ]);
    const { events } = await collectEvents(query(baseParams({ deps: testDeps(model), tools: [echo] })));
    expect(
      eventsOf(events, "thinking-delta")
        .map((event) => event.thinking)
        .join(""),
    ).toBe("I should echo.");
    expect(model.requests[1]!.messages[1]!.content).toEqual([
      { type: "thinking", thinking: "I should echo.", signature: "sig-1" },
      { type: "tool_use", id: "toolu_1", name: "Echo", input: { value: "y" } },
    ]);
  });

  it("stops at maxTurns", async () => {
    const echo = createTestTool({ name: "Echo", safe: true });
    const call = (id: string) => ({ content: [{ type: "tool_use" as const, id, name: "Echo", input: { value: id } }] });
    const model = createScriptedModel([call("t1"), call("t2"), call("t3")]);
    const { events, terminal } = await collectEvents(query(baseParams({ deps: testDeps(model), tools: [echo], maxTurns: 2 })));
    expect(terminal).toEqual({ reason: "max_turns", turnCount: 2 });
    expect(model.requests).toHaveLength(2);
    expect(eventsOf(events, "notice").map((event) => event.code)).toContain("max_turns");
  });
});
