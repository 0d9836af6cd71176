import { mkdir, writeFile } from "node:fs/promises";
import { dirname } from "node:path";
import {
  BACKGROUND_AGENTS_SERVICE,
  BackgroundAgents,
  createSubagentService,
  MEMORY_SERVICE,
  productionDeps,
  SUBAGENT_SERVICE,
  TOOL_RESULT_FILES_SERVICE,
  type AgentDefinition,
  type CairnCompactor,
  type HookDispatcher,
  type McpManager,
  type ModelClient,
  type QueryConfig,
} from "@cairn/core";
import { createJsonlTranscriptStore, createToolResultFiles, subagentTranscriptPath, toolResultsDirectory } from "@cairn/core/node";
import type { SessionStore } from "../session-store/session-store.ts";
import type { Runtime } from "./runtime-types.ts";

/** What the runtime holds that every session's services are built from. */
export type SessionServicesDeps = {
  cairnHome: string;
  version: string;
  workspaceRoot: string;
  definitions: readonly AgentDefinition[];
  client: ModelClient;
  /** Set when each conversation dumps its prompts (CAIRN_DUMP_PROMPTS): a subagent's client of its own. */
  modelFor: ((ids: { sessionId: string; agentId: string }) => ModelClient) | undefined;
  systemPrompt: readonly string[];
  queryConfig: Partial<QueryConfig>;
  createCompactor: (hooks: HookDispatcher) => CairnCompactor;
  fallbackModel: string | undefined;
  mcp: McpManager;
  transcripts: SessionStore;
};

/** `ToolUseContext.services` for one session: its subagents (with this session's gate, prompter and hooks), background agents, MCP, memory and saved tool results. */
export function buildSessionServices(deps: SessionServicesDeps, options: Parameters<Runtime["sessionServices"]>[0]): Record<string, unknown> {
  const { gate, prompter, hooks, backgroundAgents, memory, sessionId } = options;
  const subagents = createSubagentService({
    definitions: deps.definitions,
    deps: options.deps ?? productionDeps(deps.client),
    // Each subagent conversation dumps its prompts to a file of its own.
    ...(deps.modelFor ? { modelFor: deps.modelFor } : {}),
    // The environment and project memory blocks follow the agent's own system prompt.
    environmentPrompt: deps.systemPrompt.slice(1),
    gate,
    ...(prompter ? { prompter } : {}),
    hooks,
    config: deps.queryConfig,
    // Every subagent conversation compacts on its own (its breaker and accounting are its own).
    createCompactor: () => deps.createCompactor(hooks),
    ...(deps.fallbackModel ? { fallbackModel: deps.fallbackModel } : {}),
    extraTools: () => deps.mcp.allTools(),
    createTranscript: async ({ sessionId, agentId, agentType, description }) => {
      // A store without files (PostgreSQL) keeps the sidechain beside the session's rows, where every node reads it.
      if (deps.transcripts.openSidechain) return deps.transcripts.openSidechain(sessionId, { agentId, agentType, description });
      const path = subagentTranscriptPath({ cairnHome: deps.cairnHome, cwd: deps.workspaceRoot, sessionId, agentId });
      // Claude Code's sidecar: what kind of agent the sidechain file holds.
      await mkdir(dirname(path), { recursive: true });
      await writeFile(path.replace(/\.jsonl$/, ".meta.json"), `${JSON.stringify({ agentType, description, spawnDepth: 1 })}\n`).catch(() => undefined);
      return { sink: createJsonlTranscriptStore({ cairnHome: deps.cairnHome, cwd: deps.workspaceRoot, sessionId, version: deps.version, path }), path };
    },
  });
  return {
    [SUBAGENT_SERVICE]: subagents,
    [BACKGROUND_AGENTS_SERVICE]: backgroundAgents ?? new BackgroundAgents(),
    mcp: deps.mcp,
    ...(memory ? { [MEMORY_SERVICE]: memory } : {}),
    ...(sessionId ? { [TOOL_RESULT_FILES_SERVICE]: createToolResultFiles(toolResultsDirectory(deps.transcripts.transcriptPath(sessionId))) } : {}),
  };
}
