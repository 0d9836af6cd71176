import { describe, expect, it } from "vitest";
import { ModelError } from "../model/port.ts";
import { collectEvents, createScriptedModel, testContext, testDeps } from "../testing/index.ts";
import { baseParams } from "./query-test-params.ts";
import { query } from "./query.ts";

const text = (value: string) => ({ content: [{ type: "text" as const, text: value }] });
const hasBreakpoint = (request: { messages: Array<{ content: unknown }> }) => JSON.stringify(request.messages).includes("cache_control");

describe("query: thinking and prompt caching per model", () => {
  it("asks a Claude 5 model for adaptive thinking with breakpoints, and sends neither to a model it does not know", async () => {
    const model = createScriptedModel([text("a"), text("b")]);
    await collectEvents(query(baseParams({ deps: testDeps(model), model: "claude-sonnet-5-5" })));
    await collectEvents(query(baseParams({ deps: testDeps(model), model: "test-model" })));
    const [claude, other] = model.requests;
    expect(claude!.thinking).toEqual({ type: "adaptive" });
    expect(hasBreakpoint(claude!)).toBe(true);
    expect(claude!.system[0]!.cache_control).toEqual({ type: "ephemeral" });
    expect(other!.thinking).toBeUndefined();
    expect(hasBreakpoint(other!)).toBe(false);
    expect(other!.system.some((block) => block.cache_control)).toBe(false);
  });

  it("gives a budget-only model a budget below max_tokens, and honours the thinking and caching settings", async () => {
    const model = createScriptedModel([text("a"), text("b")]);
    await collectEvents(query(baseParams({ deps: testDeps(model), model: "claude-sonnet-4-5", config: { thinking: { budgetTokens: 20_000 } } })));
    await collectEvents(query(baseParams({ deps: testDeps(model), model: "test-model", config: { thinking: "off", promptCaching: "always" } })));
    const [budget, forced] = model.requests;
    expect(budget!.thinking).toEqual({ type: "enabled", budget_tokens: 20_000 });
    expect(budget!.max_tokens).toBeGreaterThan(20_000);
    expect(forced!.thinking).toBeUndefined();
    expect(hasBreakpoint(forced!)).toBe(true);
  });

  it("rebuilds the request for the fallback model: its own thinking and caching", async () => {
    const overloaded = () => ({ content: [], error: new ModelError("overloaded", "Overloaded", { status: 529 }) });
    const model = createScriptedModel([overloaded(), overloaded(), overloaded(), text("from fallback")]);
    await collectEvents(query(baseParams({ deps: testDeps(model), model: "claude-opus-5-5", fallbackModel: "claude-3-5-haiku-latest" })));
    expect(model.requests.map((request) => [request.model, request.thinking?.type ?? null])).toEqual([
      ["claude-opus-5-5", "adaptive"],
      ["claude-opus-5-5", "adaptive"],
      ["claude-opus-5-5", "adaptive"],
      ["claude-3-5-haiku-latest", null],
    ]);
  });
});

describe("query: a skill's model", () => {
  it("the main conversation's requests use the skill's model from the app state; a subagent's keep its own", async () => {
    const model = createScriptedModel([text("a"), text("b")]);
    const main = testContext();
    main.setAppState((state) => ({ ...state, skillModel: "claude-haiku-5-5" }));
    await collectEvents(query(baseParams({ deps: testDeps(model), model: "claude-sonnet-5-5", context: main })));
    const subagent = { ...testContext(), agentId: "a0123456789abcdef" };
    subagent.setAppState((state) => ({ ...state, skillModel: "claude-haiku-5-5" }));
    await collectEvents(query(baseParams({ deps: testDeps(model), model: "claude-sonnet-5-5", context: subagent })));
    expect(model.requests.map((request) => request.model)).toEqual(["claude-haiku-5-5", "claude-sonnet-5-5"]);
  });
});
