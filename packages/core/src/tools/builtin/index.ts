import type { AnyTool } from "../tool.ts";
import { createBashOutputTool, createKillShellTool } from "./bash-background.ts";
import { createBashTool, type BashToolOptions } from "./bash.ts";
import { createEditTool } from "./edit.ts";
import { createEnterPlanModeTool } from "./enter-plan-mode.ts";
import { createExitPlanModeTool } from "./exit-plan-mode.ts";
import { createGlobTool } from "./glob.ts";
import { createGrepTool } from "./grep.ts";
import { createReadTool } from "./read.ts";
import { createTodoWriteTool } from "./todo-write.ts";
import { createWriteTool } from "./write.ts";

export type BuiltinToolsOptions = BashToolOptions & {
  /** Clock for readFileState timestamps, durations and BashOutput timestamps; defaults to Date.now. */ now?: () => number;
};

/** Fresh instances of every built-in tool, with Claude Code's names and input schemas. */
export function builtinTools(options: BuiltinToolsOptions = {}): AnyTool[] {
  const clock = options.now ? { now: options.now } : {};
  const bashOptions = options.isReadOnlyCommand ? { isReadOnlyCommand: options.isReadOnlyCommand } : {};
  return [
    createReadTool(clock),
    createWriteTool(clock),
    createEditTool(clock),
    createGlobTool(clock),
    createGrepTool(),
    createBashTool(bashOptions),
    createBashOutputTool(clock),
    createKillShellTool(),
    createTodoWriteTool(),
    createEnterPlanModeTool(),
    createExitPlanModeTool(),
  ];
}

export { bashOutputTool, createBashOutputTool, createKillShellTool, killShellTool } from "./bash-background.ts";
export { bashLimits, bashTool, createBashTool } from "./bash.ts";
export type { BashProgress, BashToolOptions } from "./bash.ts";
export { createEditTool, editTool } from "./edit.ts";
export type { PatchHunk } from "./edit-apply.ts";
export { createEnterPlanModeTool } from "./enter-plan-mode.ts";
export { createGlobTool, globTool } from "./glob.ts";
export { createGrepTool, grepTool } from "./grep.ts";
export { createReadTool, readLimits, readTool } from "./read.ts";
export { createTodoWriteTool, todoWriteTool } from "./todo-write.ts";
export { createWriteTool, writeTool } from "./write.ts";
export type { ToolFailureOutput } from "./tool-failure.ts";
export { agentInputSchema, createAgentTool, type AgentInput, type AgentLaunchOutput, type AgentOutput } from "./agent.ts";
