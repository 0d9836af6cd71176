import { describe, expect, it } from "vitest";
import { applyEvents } from "./chat-reducer.ts";
import { initialChatState } from "./chat-types.ts";
import { numbered, resultEvent } from "./test-events.ts";
import { tokenBudgetText } from "./token-budget-text.ts";

describe("token budget in the run's result line", () => {
  it("says how much of the budget the run spent and how often it continued", () => {
    expect(tokenBudgetText({ budget: 10_000, used: 9_200, continuations: 2, stoppedBy: "spent" })).toBe("budget 9.2k / 10k (92%), 2 continuations");
    expect(tokenBudgetText({ budget: 2_000_000, used: 15_600, continuations: 1, stoppedBy: "diminishing_returns" })).toBe(
      "budget 16k / 2.00M (1%), 1 continuation, stopped: no more progress",
    );
  });

  it("is kept on the result item by the reducer", () => {
    const tokenBudget = { budget: 10_000, used: 10_000, continuations: 2, stoppedBy: "spent" as const };
    const state = applyEvents(initialChatState(), numbered([resultEvent("completed", { tokenBudget })]));
    expect(state.items.at(-1)).toMatchObject({ kind: "result", tokenBudget });
  });
});
