import { describe, expect, it } from "vitest";
import { createTokenBudgetTracker, parseTokenBudget } from "./token-budget.ts";

describe("parseTokenBudget", () => {
  it("reads Claude Code's forms: +N at the start or the end, and 'use/spend N tokens'", () => {
    expect(parseTokenBudget("+500k refactor the parser")).toBe(500_000);
    expect(parseTokenBudget("refactor the parser +1.5m")).toBe(1_500_000);
    expect(parseTokenBudget("refactor the parser +2M.")).toBe(2_000_000);
    expect(parseTokenBudget("please use 2M tokens on this")).toBe(2_000_000);
    expect(parseTokenBudget("spend 300k tokens")).toBe(300_000);
  });

  it("ignores prompts that name no budget", () => {
    expect(parseTokenBudget("add 500k rows to the table")).toBeNull();
    expect(parseTokenBudget("x+500k y")).toBeNull();
    expect(parseTokenBudget("use 2 tokens")).toBeNull();
    expect(parseTokenBudget("")).toBeNull();
  });
});

describe("token budget tracker", () => {
  it("continues with a nudge until 90% of the budget is spent", () => {
    const tracker = createTokenBudgetTracker(10_000);
    expect(tracker.check(2_000)).toEqual({
      action: "continue",
      nudge: "Stopped at 20% of token target (2,000 / 10,000). Keep working \u2014 do not summarize.",
    });
    expect(tracker.check(8_999).action).toBe("continue");
    expect(tracker.check(9_000)).toEqual({ action: "stop", status: { budget: 10_000, used: 9_000, continuations: 2, stoppedBy: "spent" } });
  });

  it("stops after three continuations when two turns in a row add less than 500 tokens", () => {
    const tracker = createTokenBudgetTracker(1_000_000);
    for (const used of [5_000, 10_000, 15_000]) expect(tracker.check(used).action).toBe("continue");
    expect(tracker.check(15_400).action).toBe("continue");
    expect(tracker.check(15_600)).toEqual({
      action: "stop",
      status: { budget: 1_000_000, used: 15_600, continuations: 4, stoppedBy: "diminishing_returns" },
    });
  });
});
