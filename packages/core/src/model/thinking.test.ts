import { describe, expect, it } from "vitest";
import { promptCachingFor } from "./cache-control.ts";
import { modelCapabilities } from "./model-capabilities.ts";
import { DEFAULT_THINKING_BUDGET_TOKENS, thinkingConfigFor } from "./thinking.ts";

describe("thinkingConfigFor", () => {
  it("auto: adaptive where the model supports it, a default budget where it only takes one, nothing where it has none", () => {
    expect(thinkingConfigFor("auto", "claude-sonnet-5-5")).toEqual({ type: "adaptive" });
    expect(thinkingConfigFor("auto", "claude-opus-4-7")).toEqual({ type: "adaptive" });
    expect(thinkingConfigFor("auto", "claude-sonnet-4-6")).toEqual({ type: "adaptive" });
    expect(thinkingConfigFor("auto", "claude-sonnet-4-5-20250929")).toEqual({ type: "enabled", budget_tokens: DEFAULT_THINKING_BUDGET_TOKENS });
    expect(thinkingConfigFor("auto", "claude-haiku-4-5")).toEqual({ type: "enabled", budget_tokens: DEFAULT_THINKING_BUDGET_TOKENS });
    expect(thinkingConfigFor("auto", "claude-3-5-haiku-latest")).toBeUndefined();
    expect(thinkingConfigFor("auto", "sim-model")).toBeUndefined();
  });

  it("reads Bedrock and Vertex spellings and the 1M-context suffix", () => {
    expect(thinkingConfigFor("auto", "us.anthropic.claude-sonnet-4-5-20250929-v1:0")).toEqual({
      type: "enabled",
      budget_tokens: DEFAULT_THINKING_BUDGET_TOKENS,
    });
    expect(thinkingConfigFor("auto", "claude-opus-4-7@20260101")).toEqual({ type: "adaptive" });
    expect(thinkingConfigFor("auto", "claude-sonnet-4-6[1m]")).toEqual({ type: "adaptive" });
  });

  it("off: disabled where the model can turn thinking off, left out where it cannot or has none", () => {
    expect(thinkingConfigFor("off", "claude-sonnet-4-5")).toEqual({ type: "disabled" });
    expect(thinkingConfigFor("off", "claude-opus-5-5")).toEqual({ type: "disabled" });
    expect(thinkingConfigFor("off", "claude-mythos-preview")).toBeUndefined();
    expect(thinkingConfigFor("off", "claude-3-haiku-20240307")).toBeUndefined();
    expect(thinkingConfigFor("off", "sim-model")).toBeUndefined();
  });

  it("a budget: sent where the model takes one, adaptive where it refuses budgets, at least the API's 1024", () => {
    expect(thinkingConfigFor({ budgetTokens: 4000 }, "claude-sonnet-4-6")).toEqual({ type: "enabled", budget_tokens: 4000 });
    expect(thinkingConfigFor({ budgetTokens: 4000 }, "claude-opus-4-1")).toEqual({ type: "enabled", budget_tokens: 4000 });
    expect(thinkingConfigFor({ budgetTokens: 4000 }, "claude-opus-4-8")).toEqual({ type: "adaptive" });
    expect(thinkingConfigFor({ budgetTokens: 10 }, "claude-sonnet-4-5")).toEqual({ type: "enabled", budget_tokens: 1024 });
    // A name the table does not know gets what the user asked for; a known model without thinking does not.
    expect(thinkingConfigFor({ budgetTokens: 4000 }, "proxy-model")).toEqual({ type: "enabled", budget_tokens: 4000 });
    expect(thinkingConfigFor({ budgetTokens: 4000 }, "claude-3-5-sonnet-latest")).toBeUndefined();
  });
});

describe("promptCachingFor", () => {
  it("auto follows the model table; unknown Claude names cache, other names do not", () => {
    expect(promptCachingFor("auto", "claude-sonnet-5-5")).toBe(true);
    expect(promptCachingFor("auto", "claude-3-haiku-20240307")).toBe(true);
    expect(promptCachingFor("auto", "claude-2.1")).toBe(false);
    expect(promptCachingFor("auto", "claude-instant-1.2")).toBe(false);
    expect(promptCachingFor("auto", "claude-nova-9")).toBe(true);
    expect(modelCapabilities("claude-nova-9").unknown).toBe(true);
    expect(promptCachingFor("auto", "sim-model")).toBe(false);
  });

  it("always and never override the table", () => {
    expect(promptCachingFor("always", "sim-model")).toBe(true);
    expect(promptCachingFor("never", "claude-sonnet-5-5")).toBe(false);
  });
});
