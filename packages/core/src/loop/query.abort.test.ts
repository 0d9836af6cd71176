import { describe, expect, it } from "vitest";
import type { ToolResultBlock } from "../schema/content.ts";
import { collectEvents, createScriptedModel, createTestTool, delay, eventsOf, testDeps } from "../testing/index.ts";
import { baseParams } from "./query-test-params.ts";
import { query } from "./query.ts";

describe("query: abort", () => {
  it("stops mid-stream, keeps what was whole, and ends with aborted_streaming", async () => {
    const controller = new AbortController();
    const model = createScriptedModel([
      {
        content: [{ type: "text", text: "This is a long answer that will be interrupted halfway through." }],
        beforePart: (_part, index) => {
          if (index === 4) controller.abort();
        },
      },
    ]);
    const { events, terminal } = await collectEvents(query(baseParams({ deps: testDeps(model), signal: controller.signal })));
    expect(terminal.reason).toBe("aborted_streaming");
    const partial = eventsOf(events, "message").find((event) => event.message.type === "assistant");
    expect(partial?.message).toMatchObject({ isPartial: true });
    expect(events.at(-1)?.type).toBe("result");
  });

  it("interrupts a running tool, answers every call, and ends with aborted_tools", async () => {
    const controller = new AbortController();
    let sawAbort = false;
    const slow = createTestTool({
      name: "Slow",
      safe: false,
      run: async (_input, signal) => {
        setTimeout(() => controller.abort(), 10);
        await delay(5_000, signal).catch((error: unknown) => {
          sawAbort = true;
          throw error;
        });
        return "never";
      },
    });
    const model = createScriptedModel([
      {
        content: [
          { type: "tool_use", id: "s1", name: "Slow", input: { value: "a" } },
          { type: "tool_use", id: "s2", name: "Slow", input: { value: "b" } },
        ],
      },
    ]);
    const started = Date.now();
    const { events, terminal } = await collectEvents(query(baseParams({ deps: testDeps(model), tools: [slow], signal: controller.signal })));
    expect(Date.now() - started).toBeLessThan(2_000);
    expect(terminal.reason).toBe("aborted_tools");
    expect(sawAbort).toBe(true);
    const results = eventsOf(events, "message").flatMap((event) => (event.message.type === "user" ? (event.message.message.content as ToolResultBlock[]) : []));
    // Results arrive in completion order: the queued call is answered at once, the running one when it stops.
    expect(results.map((block) => [block.tool_use_id, block.is_error]).sort()).toEqual([
      ["s1", true],
      ["s2", true],
    ]);
    for (const block of results) expect(String(block.content)).toContain("Interrupted");
  });

  it("does not wait for a tool that ignores its abort signal", async () => {
    const controller = new AbortController();
    const stubborn = createTestTool({
      name: "Stubborn",
      safe: true,
      run: async () => {
        setTimeout(() => controller.abort(), 10);
        await delay(3_000);
        return "late";
      },
    });
    const model = createScriptedModel([{ content: [{ type: "tool_use", id: "x", name: "Stubborn", input: { value: "a" } }] }]);
    const started = Date.now();
    const { terminal } = await collectEvents(query(baseParams({ deps: testDeps(model), tools: [stubborn], signal: controller.signal })));
    expect(terminal.reason).toBe("aborted_tools");
    expect(Date.now() - started).toBeLessThan(1_000);
  });

  it("returns at once when aborted before the first request", async () => {
    const controller = new AbortController();
    controller.abort();
    const model = createScriptedModel([{ content: [{ type: "text", text: "unused" }] }]);
    const { terminal } = await collectEvents(query(baseParams({ deps: testDeps(model), signal: controller.signal })));
    expect(terminal.reason).toBe("aborted_streaming");
    expect(model.requests).toHaveLength(0);
  });
});
