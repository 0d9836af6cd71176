import type { ToolUseBlock } from "../schema/content.ts";
import { findToolByName, type Tool } from "./tool.ts";

export type ToolBatch = { isConcurrencySafe: boolean; blocks: ToolUseBlock[] };

/** Whether one call may run beside others. Conservative: unknown tools, bad input or a throwing check say no. */
export function isCallConcurrencySafe(tools: readonly Tool[], block: ToolUseBlock): boolean {
  const tool = findToolByName(tools, block.name);
  if (!tool) return false;
  const parsed = tool.inputSchema.safeParse(block.input);
  if (!parsed.success) return false;
  try {
    return tool.isConcurrencySafe(parsed.data);
  } catch {
    return false;
  }
}

/**
 * Groups consecutive concurrency-safe calls into one batch; every other call gets a batch of its own.
 * Batches run in order; a safe batch runs its calls concurrently.
 */
export function partitionToolCalls(tools: readonly Tool[], blocks: readonly ToolUseBlock[]): ToolBatch[] {
  const batches: ToolBatch[] = [];
  for (const block of blocks) {
    const safe = isCallConcurrencySafe(tools, block);
    const last = batches.at(-1);
    if (safe && last?.isConcurrencySafe) last.blocks.push(block);
    else batches.push({ isConcurrencySafe: safe, blocks: [block] });
  }
  return batches;
}
