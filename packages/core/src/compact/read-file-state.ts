import type { ReadFileState } from "../tools/tool.ts";
import type { CompactionResult } from "./port.ts";

/**
 * After a summarising compaction the model no longer sees what it read earlier, so the read state
 * that lets Edit and Write proceed is dropped for every file it cannot see any more (as Claude Code
 * clears its file cache on compaction): it must Read such a file again before changing it.
 */
export function forgetUnseenFiles(state: ReadFileState, result: CompactionResult): void {
  if (!result.visibleFiles) return;
  const visible = new Set(result.visibleFiles);
  for (const path of [...state.keys()]) if (!visible.has(path)) state.delete(path);
}
