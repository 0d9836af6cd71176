import type { CompactorOptions, MergedSettings } from "@cairn/core";

/** The compactor options the context-pipeline settings ask for. */
export function compactorContextOptions(context: MergedSettings["context"]): Partial<CompactorOptions> {
  const ttlMinutes = context.promptCacheTtlMinutes;
  return ttlMinutes === undefined ? {} : { timeBasedMicrocompact: { cacheTtlMs: Math.round(ttlMinutes * 60_000) } };
}
