import { estimateCostUsd } from "@cairn/core/timeline";
import { addUsage, emptyUsageTotals, type UsageTotals } from "@cairn/core/schema";
import type { ChatItem, ToolCallView } from "./chat-types.ts";

export type CostTotals = UsageTotals & { costUsd: number; classifierRequests: number };

const add = (totals: CostTotals, model: string, usage: UsageTotals) => {
  totals.inputTokens += usage.inputTokens;
  totals.outputTokens += usage.outputTokens;
  totals.cacheReadInputTokens += usage.cacheReadInputTokens;
  totals.cacheCreationInputTokens += usage.cacheCreationInputTokens;
  totals.costUsd += estimateCostUsd(model, usage);
};

/**
 * The session's tokens (cache reads and writes included) and estimated cost, summed over its model responses and the
 * requests auto mode's classifier made to decide tool calls (each priced by its own model).
 */
export function sessionCost(items: readonly ChatItem[], toolCalls: Readonly<Record<string, ToolCallView>> = {}): CostTotals {
  const totals: CostTotals = { inputTokens: 0, outputTokens: 0, cacheReadInputTokens: 0, cacheCreationInputTokens: 0, costUsd: 0, classifierRequests: 0 };
  for (const item of items) {
    if (item.kind !== "assistant" || !item.usage) continue;
    add(totals, item.model, item.usage);
  }
  for (const call of Object.values(toolCalls)) {
    const request = call.record?.classifierRequest;
    if (!request) continue;
    totals.classifierRequests++;
    add(totals, request.model, addUsage(emptyUsageTotals(), request.usage));
  }
  return totals;
}

/** "$0.0123" below a cent, "$1.23" above; "$0" for models with no known price. */
export function formatCost(costUsd: number): string {
  if (costUsd === 0) return "$0";
  return costUsd < 0.01 ? `$${costUsd.toFixed(4)}` : `$${costUsd.toFixed(2)}`;
}
