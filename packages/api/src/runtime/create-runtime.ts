import { mkdir, writeFile } from "node:fs/promises";
import { homedir } from "node:os";
import { dirname } from "node:path";
import {
  builtinTools,
  contextWindowForModel,
  createAgentTool,
  createSessionMemory,
  createSkillTool,
  createSubagentService,
  MEMORY_SERVICE,
  type SessionMemory,
  loadAgentDefinitions,
  productionDeps,
  SUBAGENT_SERVICE,
  TOOL_RESULT_FILES_SERVICE,
  BACKGROUND_AGENTS_SERVICE,
  BackgroundAgents,
  resolveModelAlias,
  type AgentDefinition,
  type AgentFileProblem,
  type ConversationMessage,
  type McpManager,
  type PermissionGate,
  type PermissionPrompter,
  type QueryDeps,
  createCompactor,
  type CairnCompactor,
  createHookDispatcher,
  createInitialAppState,
  createModelActionClassifier,
  createPermissionEngine,
  createStore,
  defaultRetryPolicy,
  isReadOnlyBashCommand,
  type AnyTool,
  type AppState,
  type HookDispatcher,
  type QueryConfig,
  type Store,
  type ShellParser,
  type ThinkingSetting,
  type ModelClient,
} from "@cairn/core";
import {
  createJsonlTranscriptStore,
  createNodeMemoryFs,
  createNodeHookRunner,
  createNodeShellParser,
  createNodeMcpManager,
  createToolResultFiles,
  loadSettings,
  toolResultsDirectory,
  subagentTranscriptPath,
  type LoadedSettings,
} from "@cairn/core/node";
import type { PermissionMode } from "@cairn/core/schema";
import { createLocalWorkspace, createRemoteWorkspace, type WorkerWorkspace } from "@cairn/worker";
import { createMcpSandboxLauncher } from "./mcp-sandbox.ts";
import { sandboxOptionsFromSettings } from "./sandbox-options.ts";
import { resolveModelSource, type ModelSource } from "./model-source.ts";
import { sharedGitSnapshots } from "./git-snapshot.ts";
import { compactorContextOptions } from "./context-options.ts";
import { createPromptDumpFetch, promptDumpPath } from "./prompt-dump.ts";
import { buildSystemPrompt } from "./system-prompt.ts";
import type { Telemetry } from "../telemetry/telemetry-port.ts";
import { createJsonlSessionStore } from "../session-store/jsonl-session-store.ts";
import { createFileLocalSettingsStore, type LocalSettingsStore, type LocalSettingsStoreFactory } from "./local-settings.ts";
import type { SessionStore, SessionStoreFactory, SessionTranscriptSink } from "../session-store/session-store.ts";

export type RuntimeOptions = {
  workspaceRoot: string;
  cairnHome: string;
  /** The user's home: `~/.claude/CLAUDE.md`, `~/.claude/skills`, `~/` in imports (default: the OS's). */
  homeDir?: string | undefined;
  version: string;
  apiKey?: string | undefined;
  baseURL?: string | undefined;
  model?: string | undefined;
  /** `--plan-model`: the model while in plan mode (alias or id); default: the `planModel` setting. */
  planModel?: string | undefined;
  fallbackModel?: string | undefined;
  /** `--settings`: a file or inline JSON. */
  flagSettings?: string | undefined;
  allowedTools?: readonly string[];
  disallowedTools?: readonly string[];
  permissionMode?: PermissionMode | undefined;
  /** `--tools`: the built-in tools offered to the model; undefined offers all. */
  toolNames?: readonly string[] | undefined;
  /** Project hooks and MCP servers run only in a trusted workspace. */
  trusted: boolean;
  maxToolConcurrency?: number;
  /** False (CAIRN_DISABLE_PROMPT_CACHING=1) sends no breakpoints to any model; else the `promptCaching` setting decides per model. */
  promptCaching?: boolean;
  /** CAIRN_MAX_THINKING_TOKENS: 0 turns thinking off, more asks for that budget; default: the `thinking` setting. */
  maxThinkingTokens?: number | undefined;
  /** CAIRN_DUMP_PROMPTS=1: each conversation's latest request body is kept under `$CAIRN_HOME/debug/`. */
  dumpPrompts?: boolean | undefined;
  maxRetries?: number | undefined;
  managedSettingsPath?: string;
  /** Context window override (tests, small models) and the share of it that triggers auto-compaction. */
  contextWindow?: number | undefined;
  autoCompactPct?: number | undefined;
  /** False turns auto-compaction off (manual and reactive compaction still work). */
  autoCompact?: boolean | undefined;
  /** `--task-budget`: the task budget in tokens (default: the `taskBudget` setting). */
  taskBudget?: number | undefined;
  /** `--mcp-config` values: files or inline JSON in the `.mcp.json` format. */
  mcpConfig?: readonly string[] | undefined;
  /** Where sessions record traces, metrics and log events (CAIRN_ENABLE_TELEMETRY); undefined records nothing. */
  telemetry?: Telemetry | undefined;
  /** Where the rules the IDE writes live (distributed mode: PostgreSQL); default `.claude/settings.local.json`. */
  localSettings?: LocalSettingsStoreFactory | undefined;
  /** Where transcripts live (distributed mode: PostgreSQL); default one JSONL file per session under `$CAIRN_HOME/projects/`. */
  sessionStore?: SessionStoreFactory | undefined;
  /** A worktree session's runtime: the main checkout's repository directory, which its sandboxed git may write (hooks and config excepted). */
  worktreeRepository?: string | undefined;
  /** Run the tools in a workspace on a `cairn worker --listen` host (`workspace`: its name under the worker's root) instead of in this process. */
  remoteWorker?: { url: string; token: string; workspace: string } | undefined;
  mcp?: {
    /** Per-call timeout of MCP tools (default 60 s). */
    toolTimeoutMs?: number;
    /** How long a server may take to start and list its tools (default 30 s). */
    connectTimeoutMs?: number;
    /** Share of the context window MCP tool schemas may take before ToolSearch defers them (default 0.1). */
    toolSearchShare?: number;
    /** Variables for `${VAR}` expansion in MCP configs (default: the process environment). */
    env?: Readonly<Record<string, string | undefined>>;
  };
};

/** What one conversation starts with: its system prompt (with the git snapshot of that moment) and its memory and skills. */
export type SessionContext = { systemPrompt: string[]; memory: SessionMemory };

export type SessionWiring = { sink: SessionTranscriptSink; hooks: HookDispatcher; transcriptPath: string; compactor: CairnCompactor };

/** Everything a session needs, built once: the composition root shared by `cairn -p` and the server. */
export type Runtime = {
  workspaceRoot: string;
  cairnHome: string;
  version: string;
  /** The workspace's session transcripts: append, load, list. */
  transcripts: SessionStore;
  /** The workspace and its git repository, as the worker serves them. */
  workspace: WorkerWorkspace;
  /** The tools of a new conversation: built-ins, Agent, and the MCP tools (or ToolSearch in front of them). */
  readonly tools: AnyTool[];
  /** The tools for a prompt: `tools` plus the MCP tools an earlier ToolSearch in `history` loaded. */
  toolsFor(history: readonly ConversationMessage[]): AnyTool[];
  /** MCP servers: statuses (also in `store`'s `mcp.servers`), resources and prompts for the UI. */
  mcp: McpManager;
  /** Agent types for the Agent tool: built-in general-purpose plus `.claude/agents/*.md`. */
  agents: { definitions: readonly AgentDefinition[]; problems: readonly AgentFileProblem[] };
  /**
   * `ToolUseContext.services` for one session: `subagents` (runs the Agent tool's sidechains with
   * this session's gate, prompter and hooks) and `mcp`.
   */
  sessionServices(options: {
    gate: PermissionGate;
    prompter?: PermissionPrompter;
    hooks: HookDispatcher;
    deps?: QueryDeps;
    /** The session's background agents (kept across prompts by the hub); default: a new registry. */
    backgroundAgents?: BackgroundAgents;
    /** The session's memory files and skills (the Skill tool and nested CLAUDE.md read them). */
    memory?: SessionMemory;
    /** The session whose directory keeps the tool results too large for one message. */
    sessionId?: string;
  }): Record<string, unknown>;
  /** A new conversation's system prompt (git snapshot taken now) and its memory files and skills. */
  sessionContext(model: string): Promise<SessionContext>;
  /** The settings as last loaded; `reloadSettings` refreshes them for every later permission check. */
  readonly settings: LoadedSettings;
  /** The layer the IDE writes rules to (reloaded here when another node changes it). */
  localSettings: LocalSettingsStore;
  reloadSettings(): Promise<LoadedSettings>;
  readonly trusted: boolean;
  /** The user trusted the workspace: sessions wired after this run project hooks. */
  setTrusted(trusted: boolean): void;
  store: Store<AppState>;
  telemetry: Telemetry | undefined;
  model: ModelSource;
  /** The model client for one conversation (a subagent's has its `agentId`): the shared one, or one that dumps its prompts. */
  modelClient(sessionId: string, agentId?: string): ModelClient;
  /** The model used while in plan mode, aliases resolved; undefined keeps the session's model. */
  planModel: string | undefined;
  fallbackModel: string | undefined;
  /** The system prompt without a git snapshot (compaction estimates, subagents). */
  systemPrompt: string[];
  queryConfig: Partial<QueryConfig>;
  gate: ReturnType<typeof createPermissionEngine>;
  /** A permission engine over another app state: the web hub keeps one per live session. */
  createGate(store: Store<AppState>): ReturnType<typeof createPermissionEngine>;
  /** `store` (default: the runtime's) is the state whose permission mode the hooks report. */
  session(sessionId: string, store?: Store<AppState>): SessionWiring;
  close(): Promise<void>;
};

export async function createRuntime(options: RuntimeOptions): Promise<Runtime> {
  const localSettings = (options.localSettings ?? createFileLocalSettingsStore)(options.workspaceRoot);
  const settingsOptions = {
    workspaceRoot: options.workspaceRoot,
    localSettings,
    cairnHome: options.cairnHome,
    ...(options.managedSettingsPath ? { managedSettingsPath: options.managedSettingsPath } : {}),
    ...(options.flagSettings ? { flagSettings: options.flagSettings } : {}),
    cli: {
      ...(options.allowedTools ? { allowedTools: options.allowedTools } : {}),
      ...(options.disallowedTools ? { disallowedTools: options.disallowedTools } : {}),
      ...(options.permissionMode ? { permissionMode: options.permissionMode } : {}),
    },
  };
  // The Bash grammar (a wasm module and its JavaScript runtime) loads when a Bash command is first looked at, so a
  // run without Bash never pays for it; the first permission decision about a Bash command waits for it, and until
  // it is loaded no command counts as read-only (so none runs concurrently).
  let parser: ShellParser | undefined;
  let parserLoading: Promise<ShellParser> | undefined;
  const loadParser = (): Promise<ShellParser> => {
    if (parserLoading) return parserLoading;
    parserLoading = createNodeShellParser();
    parserLoading.then(
      (loaded) => {
        parser = loaded;
      },
      () => undefined,
    );
    return parserLoading;
  };
  let settings = await loadSettings(settingsOptions);
  // Another node changed the rules: the next permission check here sees them.
  const stopWatchingLocalSettings = localSettings.onChange(() => {
    loadSettings(settingsOptions).then(
      (loaded) => {
        settings = loaded;
      },
      () => undefined,
    );
  });
  let trusted = options.trusted;
  const merged = settings.merged;
  const model = await resolveModelSource({ apiKey: options.apiKey, baseURL: options.baseURL, model: options.model ?? merged.model });
  // One sandbox policy for the agent's Bash and the stdio MCP servers.
  const sandbox = sandboxOptionsFromSettings(merged.sandbox, options.cairnHome);
  const workspace =
    options.remoteWorker === undefined
      ? await createLocalWorkspace({
          root: options.workspaceRoot,
          additionalDirectories: merged.permissions.additionalDirectories,
          ...(options.worktreeRepository ? { gitDirectories: [options.worktreeRepository] } : {}),
          sandbox,
          env: merged.env,
        })
      : await createRemoteWorkspace({ ...options.remoteWorker, sandbox, env: merged.env });
  const store = createStore(createInitialAppState({ model: model.model, permissionMode: merged.permissions.defaultMode }));
  // The MCP configuration, the agent definitions and the memory files are read side by side.
  const agentsLoading = loadAgentDefinitions(workspace);
  const mcp = await createNodeMcpManager({
    workspaceRoot: workspace.root,
    version: options.version,
    trusted,
    settingsServers: merged.mcpServers,
    ...(options.mcpConfig ? { mcpConfig: options.mcpConfig } : {}),
    setAppState: store.setState,
    wrapStdio: createMcpSandboxLauncher({
      root: workspace.root,
      additionalDirectories: merged.permissions.additionalDirectories,
      sandbox,
      cairnHome: options.cairnHome,
    }),
    ...(options.mcp?.toolTimeoutMs ? { toolTimeoutMs: options.mcp.toolTimeoutMs } : {}),
    ...(options.mcp?.connectTimeoutMs ? { connectTimeoutMs: options.mcp.connectTimeoutMs } : {}),
    ...(options.mcp?.env ? { env: options.mcp.env } : {}),
  }).catch(async (error: unknown) => {
    await workspace.dispose();
    await model.close();
    throw error;
  });
  // Servers connect while the rest starts; the runtime is ready once each is connected or failed.
  const mcpStarted = mcp.start();
  const agents = await agentsLoading;
  const isReadOnlyCommand = (command: string) => {
    if (parser) return isReadOnlyBashCommand(parser, command);
    void loadParser().catch(() => undefined);
    return false;
  };
  const allTools = [...builtinTools({ isReadOnlyCommand }), createAgentTool({ definitions: agents.definitions }), createSkillTool()];
  const tools = options.toolNames
    ? allTools.filter((tool) => options.toolNames!.includes(tool.name) || tool.aliases?.some((alias) => options.toolNames!.includes(alias)))
    : allTools;
  const contextWindowTokens = options.contextWindow ?? contextWindowForModel(model.model);
  const toolsFor = (history: readonly ConversationMessage[]): AnyTool[] => [
    ...tools,
    ...mcp.toolSet({ contextWindowTokens, history, ...(options.mcp?.toolSearchShare ? { share: options.mcp.toolSearchShare } : {}) }).tools,
  ];
  // "Always allow" answers go to the local layer, where the settings panel shows them.
  const persistRule = async (rule: string) => void (await localSettings.addRule("allow", rule));
  // Auto mode's classifier: one small request through the same client, model read per call (settings reload).
  const classifier = createModelActionClassifier({ client: model.client, model: () => resolveModelAlias(settings.merged.autoMode.model, model.model) });
  // `<project>/<session>/tool-results/<id>.txt`: tool output the per-message budget saved, which Read may read back.
  const isSavedToolResult = (path: string) => {
    const projectDir = dirname(transcripts.transcriptPath("session"));
    return path.startsWith(`${projectDir}/`) && /^[^/]+\/tool-results\/[^/]+\.txt$/.test(path.slice(projectDir.length + 1));
  };
  const createGate = (state: Store<AppState>) =>
    createPermissionEngine({
      getSettings: () => settings.merged,
      getAppState: state.getState,
      setAppState: state.setState,
      workspaceRoot: workspace.root,
      additionalDirectories: merged.permissions.additionalDirectories,
      parser: loadParser,
      persistRule,
      bashSandboxed: sandbox.enabled,
      classifier,
      isReadableOutsidePath: isSavedToolResult,
    });
  const gate = createGate(store);
  const homeDir = options.homeDir ?? homedir();
  const memoryFs = createNodeMemoryFs();
  const today = () => new Date().toISOString().slice(0, 10);
  const environment = { cwd: workspace.root, platform: process.platform, date: today(), model: model.model };
  const systemPrompt = buildSystemPrompt(environment);
  const gitSnapshot = sharedGitSnapshots(workspace.root);
  const runner = createNodeHookRunner();
  // One retry policy for the loop's requests and the compactor's summary calls.
  const retry = { ...defaultRetryPolicy, ...(options.maxRetries ? { maxAttempts: options.maxRetries } : {}) };
  const queryConfig: Partial<QueryConfig> = {
    ...(options.maxToolConcurrency ? { maxToolConcurrency: options.maxToolConcurrency } : {}),
    promptCaching: options.promptCaching === false ? "never" : (merged.promptCaching ?? "auto"),
    thinking: thinkingSetting(options.maxThinkingTokens, merged.thinking),
    retry,
  };
  const planModelSetting = options.planModel ?? merged.planModel;
  const planModel = planModelSetting ? resolveModelAlias(planModelSetting, model.model) : undefined;
  /** A session's compactor; without a store (a subagent) it keeps its breaker to itself. */
  const createSessionCompactor = (hooks: HookDispatcher, sessionStore?: Store<AppState>): CairnCompactor =>
    createCompactor({
      hooks,
      ...(sessionStore ? { getAppState: sessionStore.getState, setAppState: sessionStore.setState, getTodos: () => sessionStore.getState().todos } : {}),
      readFile: async (path) => {
        const bytes = await workspace.readFile(path).catch(() => null);
        return bytes ? new TextDecoder().decode(bytes) : null;
      },
      retry,
      ...(options.contextWindow ? { contextWindow: options.contextWindow } : {}),
      ...(options.autoCompactPct ? { autoCompactPct: options.autoCompactPct } : {}),
      ...(options.autoCompact === false ? { autoCompact: false } : {}),
      ...compactorContextOptions(settings.merged.context, {
        taskBudget: sessionStore ? (options.taskBudget ?? settings.merged.context.taskBudget) : undefined,
      }),
    });
  const modelClient = (sessionId: string, agentId?: string): ModelClient =>
    options.dumpPrompts ? model.clientWithFetch(createPromptDumpFetch(promptDumpPath(options.cairnHome, sessionId, agentId))) : model.client;
  await mcpStarted;
  const transcripts = (options.sessionStore ?? createJsonlSessionStore)({
    cairnHome: options.cairnHome,
    workspaceRoot: workspace.root,
    version: options.version,
  });
  return {
    workspaceRoot: workspace.root,
    cairnHome: options.cairnHome,
    version: options.version,
    transcripts,
    workspace,
    get tools() {
      return toolsFor([]);
    },
    toolsFor,
    mcp,
    agents,
    async sessionContext(sessionModel) {
      const git = await gitSnapshot();
      return {
        systemPrompt: buildSystemPrompt({ ...environment, date: today(), model: sessionModel, git }),
        memory: createSessionMemory({ fs: memoryFs, workspaceRoot: workspace.root, homeDir, cairnHome: options.cairnHome, today, trusted: () => trusted }),
      };
    },
    sessionServices({ gate: sessionGate, prompter, hooks, deps, backgroundAgents, memory, sessionId }) {
      const subagents = createSubagentService({
        definitions: agents.definitions,
        deps: deps ?? productionDeps(model.client),
        // Each subagent conversation dumps its prompts to a file of its own.
        ...(options.dumpPrompts ? { modelFor: ({ sessionId, agentId }: { sessionId: string; agentId: string }) => modelClient(sessionId, agentId) } : {}),
        // The environment and project memory blocks follow the agent's own system prompt.
        environmentPrompt: systemPrompt.slice(1),
        gate: sessionGate,
        ...(prompter ? { prompter } : {}),
        hooks,
        config: queryConfig,
        // Every subagent conversation compacts on its own (its breaker and accounting are its own).
        createCompactor: () => createSessionCompactor(hooks),
        ...(options.fallbackModel ? { fallbackModel: options.fallbackModel } : {}),
        extraTools: () => mcp.allTools(),
        createTranscript: async ({ sessionId, agentId, agentType, description }) => {
          const path = subagentTranscriptPath({ cairnHome: options.cairnHome, cwd: workspace.root, sessionId, agentId });
          // Claude Code's sidecar: what kind of agent the sidechain file holds.
          await mkdir(dirname(path), { recursive: true });
          await writeFile(path.replace(/\.jsonl$/, ".meta.json"), `${JSON.stringify({ agentType, description, spawnDepth: 1 })}\n`).catch(() => undefined);
          return { sink: createJsonlTranscriptStore({ cairnHome: options.cairnHome, cwd: workspace.root, sessionId, version: options.version, path }), path };
        },
      });
      return {
        [SUBAGENT_SERVICE]: subagents,
        [BACKGROUND_AGENTS_SERVICE]: backgroundAgents ?? new BackgroundAgents(),
        mcp,
        ...(memory ? { [MEMORY_SERVICE]: memory } : {}),
        ...(sessionId
          ? {
              [TOOL_RESULT_FILES_SERVICE]: createToolResultFiles(toolResultsDirectory(transcripts.transcriptPath(sessionId))),
            }
          : {}),
      };
    },
    get settings() {
      return settings;
    },
    localSettings,
    async reloadSettings() {
      settings = await loadSettings(settingsOptions);
      return settings;
    },
    get trusted() {
      return trusted;
    },
    setTrusted(value) {
      trusted = value;
      // Project MCP servers start once the workspace is trusted; their statuses go to the store.
      void mcp.setTrusted(value);
    },
    store,
    telemetry: options.telemetry,
    model,
    modelClient,
    planModel,
    fallbackModel: options.fallbackModel,
    systemPrompt,
    queryConfig,
    gate,
    createGate,
    session(sessionId, sessionStore = store) {
      const transcriptPath = transcripts.transcriptPath(sessionId);
      const sink = transcripts.openTranscript(sessionId);
      const hooks = createHookDispatcher({
        getSettings: () => settings.merged,
        runner,
        sessionId,
        transcriptPath,
        cwd: workspace.root,
        trusted,
        getPermissionMode: () => sessionStore.getState().permissionMode,
      });
      const compactor = createSessionCompactor(hooks, sessionStore);
      return { sink, hooks, transcriptPath, compactor };
    },
    async close() {
      stopWatchingLocalSettings();
      await mcp.close();
      await workspace.dispose();
      await model.close();
      await transcripts.close();
    },
  };
}

/** The environment's budget beats the setting, as Claude Code's MAX_THINKING_TOKENS does. */
function thinkingSetting(maxThinkingTokens: number | undefined, setting: ThinkingSetting | undefined): ThinkingSetting {
  if (maxThinkingTokens === undefined) return setting ?? "auto";
  return maxThinkingTokens === 0 ? "off" : { budgetTokens: maxThinkingTokens };
}
