import { estimateCostUsd } from "@cairn/core/timeline";
import type { UsageTotals } from "@cairn/core/schema";
import type { ChatItem } from "./chat-types.ts";

export type CostTotals = UsageTotals & { costUsd: number };

/** The session's tokens (cache reads and writes included) and estimated cost, summed over its model responses. */
export function sessionCost(items: readonly ChatItem[]): CostTotals {
  const totals: CostTotals = { inputTokens: 0, outputTokens: 0, cacheReadInputTokens: 0, cacheCreationInputTokens: 0, costUsd: 0 };
  for (const item of items) {
    if (item.kind !== "assistant" || !item.usage) continue;
    totals.inputTokens += item.usage.inputTokens;
    totals.outputTokens += item.usage.outputTokens;
    totals.cacheReadInputTokens += item.usage.cacheReadInputTokens;
    totals.cacheCreationInputTokens += item.usage.cacheCreationInputTokens;
    totals.costUsd += estimateCostUsd(item.model, item.usage);
  }
  return totals;
}

/** "$0.0123" below a cent, "$1.23" above; "$0" for models with no known price. */
export function formatCost(costUsd: number): string {
  if (costUsd === 0) return "$0";
  return costUsd < 0.01 ? `$${costUsd.toFixed(4)}` : `$${costUsd.toFixed(2)}`;
}
