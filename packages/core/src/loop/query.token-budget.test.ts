import { describe, expect, it } from "vitest";
import { collectEvents, createScriptedModel, eventsOf, testDeps, testContext } from "../testing/index.ts";
import { baseParams } from "./query-test-params.ts";
import { query } from "./query.ts";

const answer = (value: string, outputTokens: number) => ({
  content: [{ type: "text" as const, text: value }],
  usage: { input_tokens: 100, output_tokens: outputTokens },
});
const lastText = (request: { messages: Array<{ content: unknown }> } | undefined) => JSON.stringify(request?.messages.at(-1)?.content);

describe("query: token-budget continuation", () => {
  it("keeps going past end_turn with a nudge until the budget is spent, and reports it in the result", async () => {
    const model = createScriptedModel([answer("part 1", 4_000), answer("part 2", 4_000), answer("part 3", 2_000)]);
    const { events, terminal } = await collectEvents(query(baseParams({ tokenBudget: 10_000, deps: testDeps(model) })));
    expect(terminal).toEqual({ reason: "completed", turnCount: 3 });
    expect(model.requests).toHaveLength(3);
    expect(lastText(model.requests[1])).toContain("Stopped at 40% of token target (4,000 / 10,000). Keep working \u2014 do not summarize.");
    expect(lastText(model.requests[2])).toContain("Stopped at 80% of token target (8,000 / 10,000).");
    const nudges = eventsOf(events, "message").filter((event) => event.message.type === "user" && event.message.isMeta);
    expect(nudges).toHaveLength(2);
    expect(eventsOf(events, "result")[0]!.tokenBudget).toEqual({ budget: 10_000, used: 10_000, continuations: 2, stoppedBy: "spent" });
  });

  it("stops when the continuations stop making progress", async () => {
    const model = createScriptedModel([answer("a", 3_000), answer("b", 3_000), answer("c", 3_000), answer("d", 100), answer("e", 100)]);
    const { events } = await collectEvents(query(baseParams({ tokenBudget: 1_000_000, deps: testDeps(model) })));
    expect(model.requests).toHaveLength(5);
    expect(eventsOf(events, "result")[0]!.tokenBudget).toMatchObject({ continuations: 4, stoppedBy: "diminishing_returns", used: 9_200 });
  });

  it("respects max turns, and gives a subagent no budget", async () => {
    const capped = createScriptedModel([answer("a", 10), answer("b", 10), answer("c", 10)]);
    const { terminal } = await collectEvents(query(baseParams({ tokenBudget: 1_000_000, maxTurns: 2, deps: testDeps(capped) })));
    expect(terminal.reason).toBe("max_turns");
    expect(capped.requests).toHaveLength(2);

    const sub = createScriptedModel([answer("a", 10)]);
    const context = { ...testContext(), agentId: "agent-1" };
    const { events } = await collectEvents(query(baseParams({ tokenBudget: 1_000_000, context, deps: testDeps(sub) })));
    expect(sub.requests).toHaveLength(1);
    expect(eventsOf(events, "result")[0]!.tokenBudget).toBeUndefined();
  });
});
