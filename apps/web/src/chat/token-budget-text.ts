import type { AgentEventOf } from "@cairn/core/schema";
import { formatTokens } from "./describe.ts";

type TokenBudget = NonNullable<AgentEventOf<"result">["tokenBudget"]>;

/** "budget 9.2k / 10k (92%), 2 continuations, spent" for the run's result line. */
export function tokenBudgetText(budget: TokenBudget): string {
  const percent = Math.round((budget.used / budget.budget) * 100);
  const continuations = `${budget.continuations} continuation${budget.continuations === 1 ? "" : "s"}`;
  const why = budget.stoppedBy === "diminishing_returns" ? ", stopped: no more progress" : "";
  return `budget ${formatTokens(budget.used)} / ${formatTokens(budget.budget)} (${percent}%), ${continuations}${why}`;
}
