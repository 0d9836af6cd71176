/**
 * What a model accepts, by family, so a request only carries what that model takes:
 * - `adaptive-only`: `thinking: {type: "adaptive"}` only; `{type: "enabled", budget_tokens}` is a 400 (Opus 4.7+, the Claude 5 families);
 * - `adaptive`: both forms, the budget form deprecated (Opus 4.6, Sonnet 4.6);
 * - `budget`: `{type: "enabled", budget_tokens}` only (Claude 4.5 and the 4.0/4.1/3.7 generation);
 * - `none`: no extended thinking (Claude 3.5 and older).
 */
export type ThinkingSupport = "adaptive-only" | "adaptive" | "budget" | "none";

export type ModelCapabilities = {
  thinking: ThinkingSupport;
  /** `thinking: {type: "disabled"}` is refused (the model always thinks). */
  alwaysThinks: boolean;
  /** The model takes `cache_control` breakpoints. */
  promptCaching: boolean;
  /** True when the name matched no family in the table. */
  unknown: boolean;
};

type Family = { match: RegExp } & Omit<ModelCapabilities, "unknown">;

// First match wins; more specific versions come before their family's catch-all.
const families: readonly Family[] = [
  { match: /^claude-mythos-preview/, thinking: "adaptive-only", alwaysThinks: true, promptCaching: true },
  { match: /^claude-(opus|sonnet|haiku|fable|mythos)-[5-9](-|$)/, thinking: "adaptive-only", alwaysThinks: false, promptCaching: true },
  { match: /^claude-opus-4-[789](-|$)/, thinking: "adaptive-only", alwaysThinks: false, promptCaching: true },
  { match: /^claude-(opus|sonnet)-4-6(-|$)/, thinking: "adaptive", alwaysThinks: false, promptCaching: true },
  { match: /^claude-(opus|sonnet|haiku)-4(-|$)/, thinking: "budget", alwaysThinks: false, promptCaching: true },
  { match: /^claude-3-7-sonnet/, thinking: "budget", alwaysThinks: false, promptCaching: true },
  { match: /^claude-3-/, thinking: "none", alwaysThinks: false, promptCaching: true },
  // Claude 2 and Instant predate prompt caching.
  { match: /^claude-(2|instant)/, thinking: "none", alwaysThinks: false, promptCaching: false },
];

/**
 * A `claude-*` name the table does not know yet is taken to be a newer Claude model (caching, adaptive
 * thinking); any other name (a proxy's own model, a simulator) gets neither unless a setting says so,
 * since an endpoint that does not know the fields may refuse the request.
 */
const unknownClaude: ModelCapabilities = { thinking: "adaptive", alwaysThinks: false, promptCaching: true, unknown: true };
const unknownOther: ModelCapabilities = { thinking: "none", alwaysThinks: false, promptCaching: false, unknown: true };

/** Bedrock and Vertex spell the same models `us.anthropic.claude-…-v1:0` or `claude-…@20250929`. */
function canonicalModelName(model: string): string {
  return model
    .toLowerCase()
    .replace(/\[1m\]$/, "")
    .replace(/^([a-z]{2,4}\.)?anthropic\./, "")
    .replace(/@.*$/, "")
    .replace(/-v\d+(:\d+)?$/, "");
}

export function modelCapabilities(model: string): ModelCapabilities {
  const name = canonicalModelName(model);
  const family = families.find((entry) => entry.match.test(name));
  if (family) return { thinking: family.thinking, alwaysThinks: family.alwaysThinks, promptCaching: family.promptCaching, unknown: false };
  return name.startsWith("claude-") ? unknownClaude : unknownOther;
}
