import { z } from "zod";

/**
 * The context pipeline's settings in settings.json (top-level keys, each taken from the
 * highest-priority file that sets it).
 */
export const contextSettingsShape = {
  /** Minutes the prompt cache lives without a request (default 5); past it, old tool results are cleared. */
  promptCacheTtlMinutes: z
    .number()
    .positive()
    .max(24 * 60)
    .optional(),
  /** The session's token budget: output tokens to spend before a prompt's run may end (a budget named in the prompt wins). */
  tokenBudget: z.number().int().positive().optional(),
  /** Context collapse: older spans summarised and staged, committed when the context is nearly full (off by default). */
  contextCollapse: z.boolean().optional(),
  /** The task budget in tokens, sent as the API's `task_budget` to models that take it (`--task-budget`). */
  taskBudget: z.number().int().positive().optional(),
};

const contextSettingsSchema = z.object(contextSettingsShape);
export type ContextSettings = z.infer<typeof contextSettingsSchema>;

export function mergeContextSettings(layers: ReadonlyArray<{ settings: ContextSettings }>): ContextSettings {
  const merged: Record<string, unknown> = {};
  for (const key of Object.keys(contextSettingsShape) as Array<keyof ContextSettings>) {
    const layer = layers.find((candidate) => candidate.settings[key] !== undefined);
    if (layer) merged[key] = layer.settings[key];
  }
  return merged as ContextSettings;
}
