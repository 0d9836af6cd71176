import { describe, expect, it } from "vitest";
import { createCompactor } from "../compact/compactor.ts";
import { ModelError } from "../model/port.ts";
import { TASK_BUDGET_BETA } from "../model/task-budget.ts";
import { collectEvents, createScriptedModel, eventsOf, testDeps } from "../testing/index.ts";
import { baseParams, prompt } from "./query-test-params.ts";
import { query } from "./query.ts";

const text = (value: string, input_tokens = 100) => ({ content: [{ type: "text" as const, text: value }], usage: { input_tokens, output_tokens: 10 } });
const tooLong = { content: [], error: new ModelError("prompt_too_long", "prompt is too long", { status: 400 }) };
const summary = text("<summary>1. Primary request: hello.</summary>");

describe("query: task budget", () => {
  it("sends task_budget with its beta header, and after a compaction the remaining budget less the context compacted away", async () => {
    const compactor = createCompactor({ taskBudget: { total: 500_000 } });
    const history = [
      prompt("hello"),
      ...[1, 2, 3, 4].flatMap((turn) => [
        {
          type: "assistant" as const,
          uuid: `a${turn}`,
          parentUuid: null,
          timestamp: "2026-01-01T00:00:01.000Z",
          message: {
            id: `m${turn}`,
            role: "assistant" as const,
            model: "claude-opus-4-7",
            content: [{ type: "text" as const, text: `answer ${turn}` }],
            usage: { input_tokens: 40_000 * turn, output_tokens: 10 },
          },
        },
        {
          type: "user" as const,
          uuid: `u${turn}`,
          parentUuid: null,
          timestamp: "2026-01-01T00:00:02.000Z",
          message: { role: "user" as const, content: `question ${turn}` },
        },
      ]),
    ];
    // First request refused as too long → reactive compaction (the summary call) → the request again, then a follow-up.
    const model = createScriptedModel([tooLong, summary, text("done")]);
    const { events, terminal } = await collectEvents(query(baseParams({ messages: history, model: "claude-opus-4-7", deps: testDeps(model, { compactor }) })));
    expect(terminal.reason).toBe("completed");
    const [before, summaryRequest, after] = model.requests;
    expect(before!.output_config).toEqual({ task_budget: { type: "tokens", total: 500_000 } });
    expect(before!.betas).toContain(TASK_BUDGET_BETA);
    // The summary call is not part of the task's loop and carries no budget.
    expect(summaryRequest!.output_config).toBeUndefined();
    // 160,010 tokens (the last usage) plus the question after it were compacted away.
    const remaining = after!.output_config?.task_budget?.remaining;
    expect(remaining).toBe(500_000 - eventsOf(events, "compact-boundary")[0]!.preTokens);
    expect(remaining).toBeLessThan(500_000 - 160_010);
    expect(after!.output_config?.task_budget).toMatchObject({ type: "tokens", total: 500_000 });
  });

  it("a resumed conversation goes on with what its earlier compactions left, and a new compaction adds to them", async () => {
    const boundary = (compactMetadata: Record<string, unknown>) => ({
      type: "system" as const,
      subtype: "compact_boundary",
      uuid: "b1",
      parentUuid: null,
      timestamp: "2026-01-01T00:00:00.000Z",
      compactMetadata: { trigger: "auto" as const, ...compactMetadata } as { trigger: "auto"; preTokens: number },
    });
    const summaryLine = {
      type: "user" as const,
      uuid: "s1",
      parentUuid: "b1",
      timestamp: "2026-01-01T00:00:00.000Z",
      isCompactSummary: true,
      message: { role: "user" as const, content: "Summary so far." },
    };
    const resumed = [boundary({ preTokens: 50_000, compactedTokens: 120_000 }), summaryLine, prompt("go on")];
    let model = createScriptedModel([text("going on")]);
    await collectEvents(
      query(
        baseParams({ messages: resumed, model: "claude-opus-4-7", deps: testDeps(model, { compactor: createCompactor({ taskBudget: { total: 500_000 } }) }) }),
      ),
    );
    expect(model.requests[0]!.output_config).toEqual({ task_budget: { type: "tokens", total: 500_000, remaining: 380_000 } });

    // A boundary written before Cairn counted: its preTokens at least were spent.
    model = createScriptedModel([text("going on")]);
    const legacy = [boundary({ preTokens: 50_000 }), summaryLine, prompt("go on")];
    await collectEvents(
      query(
        baseParams({ messages: legacy, model: "claude-opus-4-7", deps: testDeps(model, { compactor: createCompactor({ taskBudget: { total: 500_000 } }) }) }),
      ),
    );
    expect(model.requests[0]!.output_config).toEqual({ task_budget: { type: "tokens", total: 500_000, remaining: 450_000 } });

    // Compacting the resumed conversation again: the new boundary carries the running total.
    const long = [
      ...resumed,
      ...[1, 2, 3, 4].flatMap((turn) => [
        {
          type: "assistant" as const,
          uuid: `a${turn}`,
          parentUuid: null,
          timestamp: "2026-01-01T00:00:01.000Z",
          message: {
            id: `m${turn}`,
            role: "assistant" as const,
            model: "claude-opus-4-7",
            content: [{ type: "text" as const, text: `answer ${turn}` }],
            usage: { input_tokens: 40_000 * turn, output_tokens: 10 },
          },
        },
        {
          type: "user" as const,
          uuid: `u${turn}`,
          parentUuid: null,
          timestamp: "2026-01-01T00:00:02.000Z",
          message: { role: "user" as const, content: `question ${turn}` },
        },
      ]),
    ];
    model = createScriptedModel([tooLong, summary, text("done")]);
    const compactor = createCompactor({ taskBudget: { total: 500_000 } });
    const { events } = await collectEvents(query(baseParams({ messages: long, model: "claude-opus-4-7", deps: testDeps(model, { compactor }) })));
    const preTokens = eventsOf(events, "compact-boundary")[0]!.preTokens;
    const written = eventsOf(events, "message")
      .map((event) => event.message)
      .find((message) => message.type === "system" && message.subtype === "compact_boundary");
    expect(written?.type === "system" ? written.compactMetadata?.compactedTokens : undefined).toBe(120_000 + preTokens);
    expect(model.requests[2]!.output_config?.task_budget).toEqual({ type: "tokens", total: 500_000, remaining: 500_000 - 120_000 - preTokens });
    expect(compactor.getState().taskBudgetRemaining).toBe(500_000 - 120_000 - preTokens);
  });

  it("sends nothing to a model that does not take task budgets, and says so once", async () => {
    const model = createScriptedModel([text("hi")]);
    const compactor = createCompactor({ taskBudget: { total: 100_000 } });
    const { events } = await collectEvents(query(baseParams({ model: "claude-sonnet-4-5", deps: testDeps(model, { compactor }) })));
    expect(model.requests[0]!.output_config).toBeUndefined();
    expect(model.requests[0]!.betas).toBeUndefined();
    expect(eventsOf(events, "notice").filter((event) => event.code === "task_budget_unsupported")).toHaveLength(1);
  });

  it("sends no task_budget without a budget", async () => {
    const model = createScriptedModel([text("hi")]);
    await collectEvents(query(baseParams({ model: "claude-opus-4-7", deps: testDeps(model, { compactor: createCompactor() }) })));
    expect(model.requests[0]!.output_config).toBeUndefined();
  });
});
