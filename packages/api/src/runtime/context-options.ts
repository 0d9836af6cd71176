import type { CompactorOptions, MergedSettings } from "@cairn/core";

/**
 * The compactor options the context-pipeline settings ask for. The task budget goes to a session's
 * compactor (which tracks it across compactions), not to a subagent's.
 */
export function compactorContextOptions(context: MergedSettings["context"], options: { taskBudget: number | undefined }): Partial<CompactorOptions> {
  const ttlMinutes = context.promptCacheTtlMinutes;
  const taskBudget = options.taskBudget;
  return {
    ...(ttlMinutes === undefined ? {} : { timeBasedMicrocompact: { cacheTtlMs: Math.round(ttlMinutes * 60_000) } }),
    ...(taskBudget === undefined ? {} : { taskBudget: { total: taskBudget } }),
    ...(context.contextCollapse === true ? { collapse: {} } : {}),
  };
}
