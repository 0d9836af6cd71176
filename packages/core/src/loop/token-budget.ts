/**
 * Token-budget continuation, as Claude Code does it: a prompt that names a budget ("+500k",
 * "use 2M tokens") or the session's `tokenBudget` setting keeps the loop going past `end_turn`, with
 * a nudge each time, until 90 % of the budget is spent or the turns stop making progress.
 */

const MULTIPLIERS: Record<string, number> = { k: 1_000, m: 1_000_000, b: 1_000_000_000 };
const SHORTHAND_START = /^\s*\+(\d+(?:\.\d+)?)\s*([kmb])\b/i;
const SHORTHAND_END = /\s\+(\d+(?:\.\d+)?)\s*([kmb])\s*[.!?]?\s*$/i;
const VERBOSE = /\b(?:use|spend)\s+(\d+(?:\.\d+)?)\s*([kmb])\s*tokens?\b/i;

/** The budget a prompt asks for, in output tokens, or null when it names none. */
export function parseTokenBudget(prompt: string): number | null {
  const match = prompt.match(SHORTHAND_START) ?? prompt.match(SHORTHAND_END) ?? prompt.match(VERBOSE);
  if (!match) return null;
  const budget = Math.round(Number(match[1]) * (MULTIPLIERS[match[2]!.toLowerCase()] ?? 1));
  return budget > 0 ? budget : null;
}

/** Stop once this share of the budget is spent. */
const COMPLETION_RATIO = 0.9;
/** After three continuations, two in a row producing less than this mean the work has run dry. */
const DIMINISHING_TOKENS = 500;

export type TokenBudgetStatus = {
  budget: number;
  /** Output tokens spent by this prompt so far. */
  used: number;
  continuations: number;
  /** Why the continuations stopped: the budget is (nearly) spent, or the turns stopped making progress. */
  stoppedBy?: "spent" | "diminishing_returns";
};

export type TokenBudgetDecision = { action: "continue"; nudge: string } | { action: "stop"; status: TokenBudgetStatus };

const format = (tokens: number) => tokens.toLocaleString("en-US");

export function createTokenBudgetTracker(budget: number) {
  let continuations = 0;
  let lastUsed = 0;
  let lastDelta = 0;
  let stoppedBy: TokenBudgetStatus["stoppedBy"];
  const status = (used: number): TokenBudgetStatus => ({ budget, used, continuations, ...(stoppedBy ? { stoppedBy } : {}) });
  return {
    /** At the end of a turn that would otherwise complete: go on with a nudge, or stop. */
    check(used: number): TokenBudgetDecision {
      const delta = used - lastUsed;
      const diminishing = continuations >= 3 && delta < DIMINISHING_TOKENS && lastDelta < DIMINISHING_TOKENS;
      if (!diminishing && used < budget * COMPLETION_RATIO) {
        continuations++;
        lastDelta = delta;
        lastUsed = used;
        const percent = Math.round((used / budget) * 100);
        return {
          action: "continue",
          nudge: `Stopped at ${percent}% of token target (${format(used)} / ${format(budget)}). Keep working \u2014 do not summarize.`,
        };
      }
      stoppedBy = diminishing ? "diminishing_returns" : "spent";
      return { action: "stop", status: status(used) };
    },
    status,
  };
}
