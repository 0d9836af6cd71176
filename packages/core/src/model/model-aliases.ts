/** Claude Code's model aliases, mapped to the current model of each family. */
export const MODEL_ALIASES = {
  sonnet: "claude-sonnet-5-5",
  opus: "claude-opus-5-5",
  haiku: "claude-haiku-5-5",
} as const;
export type ModelAlias = keyof typeof MODEL_ALIASES;

/**
 * A model name as the user or the model wrote it → the id to send. `inherit` (or nothing) is the
 * given fallback (the parent's model for a subagent); an alias is its family's current model; any
 * other name is sent as it is.
 */
export function resolveModelAlias(requested: string | undefined, inherited: string): string {
  if (requested === undefined || requested === "" || requested === "inherit") return inherited;
  const alias = requested.toLowerCase();
  if (alias in MODEL_ALIASES) return MODEL_ALIASES[alias as ModelAlias];
  return requested;
}
