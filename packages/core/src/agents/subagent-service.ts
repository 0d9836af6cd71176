import type { ModelClient } from "../model/port.ts";
import { noHooks, type HookDispatcher } from "../hooks/port.ts";
import { sessionMemoryOf } from "../memory/session-memory.ts";
import type { QueryConfig } from "../loop/config.ts";
import type { QueryDeps } from "../loop/deps.ts";
import { runPrompt, type RunPromptResult } from "../loop/run-prompt.ts";
import type { Compactor } from "../compact/port.ts";
import { resolveModelAlias } from "../model/model-aliases.ts";
import type { PermissionGate, PermissionPrompter } from "../permissions/port.ts";
import type { AgentEvent, Terminal } from "../schema/events.ts";
import { emptyUsageTotals, type UsageTotals } from "../schema/usage.ts";
import type { TranscriptSink } from "../session/port.ts";
import { findToolByName, textContent, type Tool, type ToolUseContext } from "../tools/tool.ts";
import { GENERAL_PURPOSE_AGENT_TYPE, mergeAgentDefinitions, type AgentDefinition } from "./definition.ts";
import { SubagentError, type SubagentProgress, type SubagentRunRequest, type SubagentRunResult, type SubagentService } from "./service.ts";
import { subagentHooks } from "./subagent-hooks.ts";

/** The Agent tool's names; a subagent never gets them, which bounds recursion at one level. */
export const AGENT_TOOL_NAMES: readonly string[] = ["Agent", "Task"];

/** Stream parts that would flood the parent's event stream; the assembled messages still arrive. */
const STREAM_ONLY_EVENTS = new Set<AgentEvent["type"]>(["message-start", "block-start", "text-delta", "thinking-delta", "tool-input-delta", "block-stop"]);

export type SubagentTranscript = { sink: TranscriptSink; path?: string };

export type SubagentServiceOptions = {
  /** Project agents; the built-in general-purpose agent is added unless one replaces it. */
  definitions: readonly AgentDefinition[];
  deps: QueryDeps;
  /** Blocks after the agent's own system prompt: the environment. */
  environmentPrompt?: readonly string[];
  gate?: PermissionGate;
  prompter?: PermissionPrompter;
  hooks?: HookDispatcher;
  /** Opens the sidechain transcript of one subagent run. */
  createTranscript?: (info: { sessionId: string; agentId: string; agentType: string; description: string }) => Promise<SubagentTranscript> | SubagentTranscript;
  newAgentId?: () => string;
  config?: Partial<QueryConfig>;
  maxTurns?: number;
  fallbackModel?: string;
  /**
   * A fresh compactor for each subagent conversation (its own breaker and token accounting); without
   * it the subagent uses `deps.compactor`.
   */
  createCompactor?: () => Compactor;
  /** The model client of one subagent conversation (e.g. one that dumps its prompts); default: `deps.model`. */
  modelFor?: (conversation: { sessionId: string; agentId: string }) => ModelClient;
  /** Maps an agent's `model` (alias or id) to the model to call; default: `inherit` → the parent's model, aliases → their model. */
  resolveModel?: (requested: string | undefined, parentModel: string) => string;
  /** Tools an agent definition may name beyond the parent's loaded ones (e.g. deferred MCP tools). */
  extraTools?: () => readonly Tool[];
};

/** Claude Code's agent id shape: `a` + 16 hex digits. */
export function agentIdFrom(uuid: string): string {
  return `a${uuid.replace(/-/g, "").slice(0, 16)}`;
}

export function defaultResolveModel(requested: string | undefined, parentModel: string): string {
  return resolveModelAlias(requested, parentModel);
}

/** Tools no subagent gets, as in Claude Code: plan mode belongs to the main conversation. */
const PARENT_ONLY_TOOLS = ["ExitPlanMode", "EnterPlanMode"];

const backgroundPrompter: PermissionPrompter = {
  async ask() {
    return { behavior: "deny", feedback: "Permission prompts are not available to a background agent; this call was denied." };
  },
};

/** The tools a subagent gets: the parent's (never the Agent tool or ExitPlanMode), narrowed to the definition's list. */
export function subagentTools(definition: AgentDefinition, parentTools: readonly Tool[], extraTools: readonly Tool[] = []): Tool[] {
  const allowed = (tool: Tool) => !AGENT_TOOL_NAMES.includes(tool.name) && !PARENT_ONLY_TOOLS.includes(tool.name);
  if (!definition.tools) return parentTools.filter(allowed);
  const pool = [...parentTools, ...extraTools];
  const chosen: Tool[] = [];
  for (const name of definition.tools) {
    const tool = findToolByName(pool, name);
    if (tool && allowed(tool) && !chosen.includes(tool)) chosen.push(tool);
  }
  return chosen;
}

/**
 * A sidechain conversation per Agent call: fresh messages (the prompt only), the agent's system
 * prompt, a tool subset, and the parent's permission gate, prompter and hooks (with SubagentStop
 * for Stop). Its messages carry `isSidechain: true` and the `agentId`, and go to their own
 * transcript; its events reach the parent as progress; its last text is the result.
 */
export function createSubagentService(options: SubagentServiceOptions): SubagentService {
  const definitions = mergeAgentDefinitions(options.definitions);
  const newAgentId = options.newAgentId ?? (() => agentIdFrom(options.deps.uuid()));
  const resolveModel = options.resolveModel ?? defaultResolveModel;
  return {
    definitions: () => definitions,
    async *run(request: SubagentRunRequest): AsyncGenerator<SubagentProgress, SubagentRunResult, void> {
      const agentType = request.subagentType ?? GENERAL_PURPOSE_AGENT_TYPE;
      const definition = definitions.find((candidate) => candidate.agentType === agentType);
      if (!definition) {
        throw new SubagentError(
          "unknown_agent_type",
          `Agent type '${agentType}' not found. Available agents: ${definitions.map((known) => known.agentType).join(", ")}`,
        );
      }
      const parent = request.parentContext;
      const agentId = newAgentId();
      const startedAt = options.deps.now();
      const transcript = await options.createTranscript?.({ sessionId: parent.sessionId, agentId, agentType, description: request.description });
      const context: Omit<ToolUseContext, "signal" | "tools" | "messages"> = {
        sessionId: parent.sessionId,
        cwd: parent.cwd,
        workspace: parent.workspace,
        // What the parent read stays known; what the subagent reads does not leak back.
        readFileState: new Map(parent.readFileState),
        getAppState: parent.getAppState,
        setAppState: parent.setAppState,
        agentId,
        services: parent.services,
      };
      const memory = sessionMemoryOf(parent);
      const loop = runPrompt({
        history: [],
        prompt: request.prompt,
        ...(transcript ? { sink: transcript.sink } : {}),
        systemPrompt: [definition.systemPrompt, ...(options.environmentPrompt ?? [])],
        tools: subagentTools(definition, parent.tools, options.extraTools?.() ?? []),
        model: resolveModel(request.model ?? definition.model, parent.getAppState().model),
        ...(options.fallbackModel ? { fallbackModel: options.fallbackModel } : {}),
        ...(options.maxTurns ? { maxTurns: options.maxTurns } : {}),
        signal: parent.signal,
        context,
        ...(options.gate ? { gate: options.gate } : {}),
        ...(request.background ? { prompter: backgroundPrompter } : options.prompter ? { prompter: options.prompter } : {}),
        hooks: subagentHooks(options.hooks ?? noHooks, { agentId, agentType, transcriptPath: transcript?.path }),
        // The session's memory files reach subagents too, as in Claude Code.
        ...(memory ? { memory } : {}),
        deps: {
          ...options.deps,
          ...(options.createCompactor ? { compactor: options.createCompactor() } : {}),
          ...(options.modelFor ? { model: options.modelFor({ sessionId: parent.sessionId, agentId }) } : {}),
        },
        ...(options.config ? { config: options.config } : {}),
      });
      let finished: RunPromptResult | undefined;
      let usage: UsageTotals = emptyUsageTotals();
      let toolUseCount = 0;
      try {
        while (true) {
          const step = await loop.next();
          if (step.done) {
            finished = step.value;
            break;
          }
          const event = step.value;
          if (event.type === "tool-end") toolUseCount++;
          if (event.type === "result") usage = event.usage;
          if (STREAM_ONLY_EVENTS.has(event.type)) continue;
          yield { type: "subagent", agentId, agentType, description: request.description, event };
        }
      } finally {
        // Reached early when the parent stops listening (abort): end the sidechain loop too.
        if (!finished) await loop.return(undefined as never).catch(() => undefined);
        await transcript?.sink.close().catch(() => undefined);
      }
      return {
        agentId,
        agentType,
        text: finalText(finished.messages),
        terminal: finished.terminal,
        usage,
        durationMs: options.deps.now() - startedAt,
        toolUseCount,
        ...(transcript?.path ? { transcriptPath: transcript.path } : {}),
      };
    },
  };
}

function finalText(messages: RunPromptResult["messages"]): string {
  for (let index = messages.length - 1; index >= 0; index--) {
    const message = messages[index]!;
    if (message.type !== "assistant") continue;
    const text = textContent(message.message.content).trim();
    if (text) return text;
  }
  return "";
}

export function subagentFailed(terminal: Terminal): boolean {
  return terminal.reason === "model_error" || terminal.reason === "prompt_too_long";
}
