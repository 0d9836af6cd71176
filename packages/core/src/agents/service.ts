import type { AgentEvent, Terminal } from "../schema/events.ts";
import type { UsageTotals } from "../schema/usage.ts";
import type { ToolUseContext } from "../tools/tool.ts";
import type { AgentDefinition } from "./definition.ts";

/** The key under `ToolUseContext.services` where the composition root puts the `SubagentService`. */
export const SUBAGENT_SERVICE = "subagents";

export type SubagentRunRequest = {
  description: string;
  prompt: string;
  /** Default: `general-purpose`. */
  subagentType?: string;
  /** The Agent call's `model` (alias or id); overrides the definition's. */
  model?: string;
  /** A background run: nobody watches its progress, so a permission question is denied instead of asked. */
  background?: boolean;
  /** The Agent tool call's context: tools, workspace, app state, abort signal. */
  parentContext: ToolUseContext;
  toolUseId: string;
};

/** One event of a running subagent, sent to the parent as the Agent call's `tool-progress` data. */
export type SubagentProgress = {
  type: "subagent";
  agentId: string;
  agentType: string;
  description: string;
  event: AgentEvent;
};

export type SubagentRunResult = {
  agentId: string;
  agentType: string;
  /** The subagent's last text answer: the Agent tool's result. */
  text: string;
  terminal: Terminal;
  usage: UsageTotals;
  durationMs: number;
  toolUseCount: number;
  transcriptPath?: string;
};

/**
 * Runs subagents for the Agent tool. The composition root builds one per session with what a
 * sidechain loop needs (model deps, gate, prompter, hooks, transcript factory) and puts it in
 * `ToolUseContext.services.subagents`.
 */
export interface SubagentService {
  definitions(): readonly AgentDefinition[];
  run(request: SubagentRunRequest): AsyncGenerator<SubagentProgress, SubagentRunResult, void>;
}

export function subagentServiceOf(context: Pick<ToolUseContext, "services">): SubagentService | undefined {
  const candidate = context.services[SUBAGENT_SERVICE] as Partial<SubagentService> | undefined;
  if (!candidate || typeof candidate.run !== "function" || typeof candidate.definitions !== "function") return undefined;
  return candidate as SubagentService;
}

export const subagentErrorCodes = ["unknown_agent_type"] as const;
export type SubagentErrorCode = (typeof subagentErrorCodes)[number];

export class SubagentError extends Error {
  readonly code: SubagentErrorCode;
  constructor(code: SubagentErrorCode, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = "SubagentError";
    this.code = code;
  }
}
