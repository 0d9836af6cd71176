import type { ToolUseContext } from "./tool.ts";

/**
 * Where tool output too large for one message is kept (Node: `<session>/tool-results/` beside the
 * transcript). The Read tool reads these files back, although they are outside the workspace.
 */
export interface ToolResultFiles {
  /** Saves one result's full text and returns the absolute path the model can Read. */
  save(toolUseId: string, content: string, signal: AbortSignal): Promise<string>;
  /** Whether `path` is one of this session's saved results. */
  owns(path: string): boolean;
  read(path: string, signal: AbortSignal): Promise<string>;
}

export const TOOL_RESULT_FILES_SERVICE = "toolResultFiles";

export function toolResultFilesOf(context: Pick<ToolUseContext, "services">): ToolResultFiles | undefined {
  return context.services[TOOL_RESULT_FILES_SERVICE] as ToolResultFiles | undefined;
}
