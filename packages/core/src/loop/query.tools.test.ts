import { describe, expect, it } from "vitest";
import type { ToolResultBlock } from "../schema/content.ts";
import { collectEvents, createScriptedModel, createTestTool, delay, eventsOf, testDeps, type ToolLogEntry } from "../testing/index.ts";
import type { ToolUseContext } from "../tools/tool.ts";
import { baseParams } from "./query-test-params.ts";
import { query } from "./query.ts";

const call = (id: string, name: string, value = id) => ({ type: "tool_use" as const, id, name, input: { value } });

function overlaps(log: ToolLogEntry[], a: string, b: string): boolean {
  const at = (id: string, event: "start" | "end") => log.find((entry) => entry.id === id && entry.event === event)!.at;
  return at(a, "start") < at(b, "end") && at(b, "start") < at(a, "end");
}

function resultsOf(request: { messages: Array<{ content: unknown }> }): ToolResultBlock[] {
  const last = request.messages.at(-1)!.content as ToolResultBlock[];
  return last.filter((block) => block.type === "tool_result");
}

describe("query: tool orchestration", () => {
  it("runs consecutive safe calls concurrently and unsafe calls one at a time", async () => {
    const log: ToolLogEntry[] = [];
    const read = createTestTool({ name: "Read", safe: true, log, run: async () => (await delay(40), "read") });
    const write = createTestTool({ name: "Write", safe: false, log, run: async () => (await delay(40), "written") });
    const model = createScriptedModel([
      { content: [call("r1", "Read"), call("r2", "Read"), call("r3", "Read"), call("w1", "Write"), call("w2", "Write")] },
      { content: [{ type: "text", text: "done" }] },
    ]);
    const { events, terminal } = await collectEvents(query(baseParams({ deps: testDeps(model), tools: [read, write] })));
    expect(terminal.reason).toBe("completed");
    expect(overlaps(log, "r1", "r2")).toBe(true);
    expect(overlaps(log, "r2", "r3")).toBe(true);
    expect(overlaps(log, "r3", "w1")).toBe(false);
    expect(overlaps(log, "w1", "w2")).toBe(false);
    const batches = Object.fromEntries(eventsOf(events, "tool-end").map((event) => [event.record.toolUseId, event.record.batch]));
    expect(batches.r1).toBe(batches.r2);
    expect(batches.r2).toBe(batches.r3);
    expect(new Set([batches.r1, batches.w1, batches.w2]).size).toBe(3);
    // Every call has its result, in call order, in the next request.
    expect(resultsOf(model.requests[1]!).map((block) => block.tool_use_id)).toEqual(["r1", "r2", "r3", "w1", "w2"]);
  });

  it("honours the concurrency limit", async () => {
    const log: ToolLogEntry[] = [];
    let active = 0;
    let peak = 0;
    const read = createTestTool({
      name: "Read",
      safe: true,
      log,
      run: async () => {
        peak = Math.max(peak, ++active);
        await delay(20);
        active--;
        return "ok";
      },
    });
    const model = createScriptedModel([{ content: ["a", "b", "c", "d", "e"].map((id) => call(id, "Read")) }, { content: [{ type: "text", text: "done" }] }]);
    await collectEvents(query(baseParams({ deps: testDeps(model), tools: [read], config: { maxToolConcurrency: 2 } })));
    expect(peak).toBe(2);
  });

  it("starts a safe call while the model is still streaming later blocks", async () => {
    const log: ToolLogEntry[] = [];
    const read = createTestTool({ name: "Read", safe: true, log });
    let startedBeforeStreamEnd = false;
    const model = createScriptedModel([
      {
        content: [call("r1", "Read"), { type: "text", text: "still talking after the call" }],
        beforePart: async (part) => {
          if (part.type === "message-stop") {
            await delay(20);
            startedBeforeStreamEnd = log.some((entry) => entry.id === "r1" && entry.event === "start");
          }
        },
      },
      { content: [{ type: "text", text: "done" }] },
    ]);
    const { events } = await collectEvents(query(baseParams({ deps: testDeps(model), tools: [read] })));
    expect(startedBeforeStreamEnd).toBe(true);
    const order = events.map((event) => (event.type === "message" ? `message:${event.message.type}` : event.type));
    expect(order.indexOf("message:assistant")).toBeLessThan(order.indexOf("message:user"));
  });

  it("applies context modifiers of a concurrent batch in call order after the batch", async () => {
    const seen: string[] = [];
    const tag = (value: string) => (context: ToolUseContext) => ({
      ...context,
      services: { ...context.services, trail: [...((context.services.trail as string[]) ?? []), value] },
    });
    const slowFirst = createTestTool({
      name: "Mark",
      safe: true,
      run: async (input) => {
        await delay(input.value === "first" ? 40 : 5);
        return input.value;
      },
      modifier: (input) => tag(input.value),
    });
    const inspect = createTestTool({
      name: "Inspect",
      safe: false,
      run: () => "inspected",
      modifier: () => (context) => {
        seen.push(...((context.services.trail as string[]) ?? []));
        return context;
      },
    });
    const model = createScriptedModel([
      { content: [call("m1", "Mark", "first"), call("m2", "Mark", "second"), call("i1", "Inspect")] },
      { content: [{ type: "text", text: "done" }] },
    ]);
    await collectEvents(query(baseParams({ deps: testDeps(model), tools: [slowFirst, inspect] })));
    // m2 finishes first, yet the batch's modifiers apply in call order.
    expect(seen).toEqual(["first", "second"]);
  });

  it("returns a model-readable error for invalid input and keeps going", async () => {
    const echo = createTestTool({ name: "Echo", safe: true });
    const model = createScriptedModel([
      { content: [{ type: "tool_use", id: "bad", name: "Echo", input: { value: 42 } }] },
      { content: [{ type: "text", text: "I will fix the input." }] },
    ]);
    const { terminal } = await collectEvents(query(baseParams({ deps: testDeps(model), tools: [echo] })));
    expect(terminal.reason).toBe("completed");
    const [result] = resultsOf(model.requests[1]!);
    expect(result).toMatchObject({ tool_use_id: "bad", is_error: true });
    expect(result!.content).toContain("InputValidationError: Echo failed");
    expect(result!.content).toContain("value");
  });

  it("handles malformed JSON from the model as a validation error", async () => {
    const echo = createTestTool({ name: "Echo", safe: true });
    const model = createScriptedModel([
      { content: [{ type: "tool_use", id: "raw", name: "Echo", input: {}, rawJson: '{"value": "unterminated' }] },
      { content: [{ type: "text", text: "ok" }] },
    ]);
    await collectEvents(query(baseParams({ deps: testDeps(model), tools: [echo] })));
    const [result] = resultsOf(model.requests[1]!);
    expect(result).toMatchObject({ is_error: true });
    expect(result!.content).toContain("InputValidationError");
  });

  it("answers an unknown tool with an error result and finds tools by alias", async () => {
    const echo = createTestTool({ name: "Echo", safe: true, aliases: ["OldEcho"] });
    const model = createScriptedModel([{ content: [call("u1", "Nope"), call("a1", "OldEcho")] }, { content: [{ type: "text", text: "ok" }] }]);
    await collectEvents(query(baseParams({ deps: testDeps(model), tools: [echo] })));
    const results = resultsOf(model.requests[1]!);
    expect(results[0]).toMatchObject({ tool_use_id: "u1", is_error: true, content: "Error: No such tool available: Nope" });
    expect(results[1]).toMatchObject({ tool_use_id: "a1", content: "Echo:a1" });
  });

  it("a throwing tool does not cancel its concurrent siblings", async () => {
    const log: ToolLogEntry[] = [];
    const flaky = createTestTool({
      name: "Read",
      safe: true,
      log,
      run: async (input) => {
        await delay(input.value === "boom" ? 5 : 30);
        if (input.value === "boom") throw Object.assign(new Error("disk on fire"), { code: "EIO" });
        return `read ${input.value}`;
      },
    });
    const model = createScriptedModel([
      { content: [call("ok1", "Read", "a"), call("bad", "Read", "boom"), call("ok2", "Read", "b")] },
      { content: [{ type: "text", text: "ok" }] },
    ]);
    const { events } = await collectEvents(query(baseParams({ deps: testDeps(model), tools: [flaky] })));
    const results = resultsOf(model.requests[1]!);
    expect(results.map((block) => [block.tool_use_id, block.is_error ?? false, block.content])).toEqual([
      ["ok1", false, "read a"],
      ["bad", true, "Error: disk on fire"],
      ["ok2", false, "read b"],
    ]);
    const failed = eventsOf(events, "tool-end").find((event) => event.record.toolUseId === "bad");
    expect(failed?.record.errorClass).toBe("Error:EIO");
  });

  it("cuts an oversized result with a clear marker", async () => {
    const big = createTestTool({ name: "Big", safe: true, run: () => "x".repeat(150_000) });
    const model = createScriptedModel([{ content: [call("b1", "Big")] }, { content: [{ type: "text", text: "ok" }] }]);
    await collectEvents(query(baseParams({ deps: testDeps(model), tools: [big] })));
    const [result] = resultsOf(model.requests[1]!);
    expect((result!.content as string).length).toBeLessThan(101_000);
    expect(result!.content).toContain("characters truncated");
  });
});
