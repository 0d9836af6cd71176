import type { UsageTotals } from "../schema/usage.ts";

/** US dollars per million tokens, from Anthropic's public price list, by model family. */
const pricePerMillion: Array<{ match: RegExp; input: number; output: number; cacheRead: number; cacheWrite: number }> = [
  { match: /opus-4-[56789]|opus-5/, input: 5, output: 25, cacheRead: 0.5, cacheWrite: 6.25 },
  { match: /opus/, input: 15, output: 75, cacheRead: 1.5, cacheWrite: 18.75 },
  { match: /haiku-4|haiku-5/, input: 1, output: 5, cacheRead: 0.1, cacheWrite: 1.25 },
  { match: /haiku/, input: 0.8, output: 4, cacheRead: 0.08, cacheWrite: 1 },
  { match: /sonnet|claude/, input: 3, output: 15, cacheRead: 0.3, cacheWrite: 3.75 },
];

/** An estimate of what a run cost; 0 for models with no known price (the demo model, simulators). */
export function estimateCostUsd(model: string, usage: UsageTotals): number {
  const price = pricePerMillion.find((entry) => entry.match.test(model));
  if (!price) return 0;
  return (
    (usage.inputTokens * price.input +
      usage.outputTokens * price.output +
      usage.cacheReadInputTokens * price.cacheRead +
      usage.cacheCreationInputTokens * price.cacheWrite) /
    1_000_000
  );
}
