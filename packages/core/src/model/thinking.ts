import { modelCapabilities } from "./model-capabilities.ts";
import type { ThinkingConfig } from "./port.ts";

/**
 * The user's thinking setting: `auto` thinks the way each model thinks best (adaptive where the model
 * supports it, else a fixed budget), `off` asks for no thinking, a budget asks for that many tokens.
 */
export type ThinkingSetting = "auto" | "off" | { budgetTokens: number };

/** The budget `auto` gives a model that only takes the fixed-budget form. */
export const DEFAULT_THINKING_BUDGET_TOKENS = 10_000;
/** The API's floor for `budget_tokens`. */
export const MIN_THINKING_BUDGET_TOKENS = 1024;

/** The `thinking` field for one request to `model`; undefined leaves it out (the model has no thinking, or cannot turn it off). */
export function thinkingConfigFor(setting: ThinkingSetting, model: string): ThinkingConfig | undefined {
  const capabilities = modelCapabilities(model);
  if (setting === "off") {
    if (capabilities.alwaysThinks || capabilities.thinking === "none") return undefined;
    return { type: "disabled" };
  }
  if (setting === "auto") {
    switch (capabilities.thinking) {
      case "adaptive-only":
      case "adaptive":
        return { type: "adaptive" };
      case "budget":
        return { type: "enabled", budget_tokens: DEFAULT_THINKING_BUDGET_TOKENS };
      case "none":
        return undefined;
    }
  }
  const budget = Math.max(MIN_THINKING_BUDGET_TOKENS, Math.floor(setting.budgetTokens));
  switch (capabilities.thinking) {
    // These models refuse a fixed budget; adaptive is the only way they think.
    case "adaptive-only":
      return { type: "adaptive" };
    case "adaptive":
    case "budget":
      return { type: "enabled", budget_tokens: budget };
    case "none":
      // A name the table does not know gets what the user asked for; a known model without thinking gets nothing.
      return capabilities.unknown ? { type: "enabled", budget_tokens: budget } : undefined;
  }
}
