/** The beta header that opts a request into task budgets (`output_config.task_budget`). */
export const TASK_BUDGET_BETA = "task-budgets-2026-03-13";

/** What the API takes: the whole task's token budget and, after client-side compaction, what is left of it. */
export type TaskBudget = { type: "tokens"; total: number; remaining?: number };

/** Task budgets are a beta of the newest models only; a model without it would refuse the field. */
export function modelAcceptsTaskBudget(model: string): boolean {
  return /claude-(opus-4-[7-9]|opus-[5-9]|fable|mythos)/i.test(model);
}
