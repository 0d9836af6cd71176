import type { Compactor } from "../compact/port.ts";
import { modelAcceptsTaskBudget, type TaskBudget } from "../model/task-budget.ts";
import type { AgentEvent } from "../schema/events.ts";
import type { ConversationMessage } from "../schema/messages.ts";

/**
 * The `task_budget` of the next request: the total, and the remaining share once compactions have
 * removed context the server can no longer count. None when no budget is set or the model would refuse it.
 */
export function taskBudgetForRequest(compactor: Compactor, model: string, conversation: readonly ConversationMessage[]): TaskBudget | undefined {
  const budget = compactor.taskBudget?.(conversation);
  if (!budget || !modelAcceptsTaskBudget(model)) return undefined;
  return { type: "tokens", total: budget.total, ...(budget.remaining === undefined ? {} : { remaining: budget.remaining }) };
}

/** Said once per prompt when a budget is set but the model does not take one, so the setting is not silently lost. */
export function taskBudgetIgnoredNotice(compactor: Compactor, model: string): AgentEvent | null {
  const budget = compactor.taskBudget?.();
  if (!budget || modelAcceptsTaskBudget(model)) return null;
  return {
    type: "notice",
    level: "warning",
    code: "task_budget_unsupported",
    message: `The task budget (${budget.total.toLocaleString("en-US")} tokens) is not sent: ${model} does not accept task budgets.`,
  };
}
