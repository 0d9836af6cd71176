import { homedir } from "node:os";
import { dirname } from "node:path";
import {
  builtinTools,
  contextWindowForModel,
  createAgentTool,
  createMemorySource,
  createSessionMemory,
  createSkillTool,
  loadAgentDefinitions,
  resolveModelAlias,
  type ConversationMessage,
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
  type ThinkingSetting,
  type ModelClient,
} from "@cairn/core";
import { createNodeMemoryFs, createNodeHookRunner, createNodeMcpManager, loadSettings } from "@cairn/core/node";
import type { LocalWorkspaceOptions, WorkerWorkspace } from "@cairn/worker";
import { diskAgentFiles } from "./disk-agent-files.ts";
import { createWorkerMemoryFs } from "../workers/worker-memory-fs.ts";
import { takeWorkerGitSnapshot } from "../workers/worker-git-snapshot.ts";
import { createMcpSandboxLauncher } from "./mcp-sandbox.ts";
import { sandboxOptionsFromSettings } from "./sandbox-options.ts";
import { resolveModelSource } from "./model-source.ts";
import { sharedGitSnapshots } from "./git-snapshot.ts";
import { compactorContextOptions } from "./context-options.ts";
import { createPromptDumpFetch, promptDumpPath } from "./prompt-dump.ts";
import { buildSystemPrompt } from "./system-prompt.ts";
import { createJsonlSessionStore } from "../session-store/jsonl-session-store.ts";
import { createFileLocalSettingsStore } from "./local-settings.ts";
import { createLazyShellParser } from "./lazy-shell-parser.ts";
import { buildSessionServices } from "./session-services.ts";
import type { Runtime, RuntimeOptions } from "./runtime-types.ts";

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
  const parser = createLazyShellParser();
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
  const model = await resolveModelSource({ apiKey: options.apiKey, baseURL: options.baseURL, model: options.model ?? merged.model, fetch: options.modelFetch });
  // One sandbox policy for the agent's Bash and the stdio MCP servers.
  const sandbox = sandboxOptionsFromSettings(merged.sandbox, options.cairnHome);
  const workspace =
    options.remoteWorkspace === undefined
      ? await openLocalWorkspace(options, {
          root: options.workspaceRoot,
          additionalDirectories: merged.permissions.additionalDirectories,
          ...(options.worktreeRepository ? { gitDirectories: [options.worktreeRepository] } : {}),
          sandbox,
          env: merged.env,
        })
      : await options.remoteWorkspace({ sandbox, env: merged.env });
  const store = createStore(createInitialAppState({ model: model.model, permissionMode: merged.permissions.defaultMode }));
  // The MCP configuration, the agent definitions and the memory files are read side by side. A local worker process
  // shares this disk: its agent files are read here, so nothing before the first request waits for that process to start.
  const localWorker = options.remoteWorkspace === undefined && options.inProcessWorkspace !== true;
  const agentsLoading = loadAgentDefinitions(localWorker ? diskAgentFiles(workspace.root) : workspace);
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
    const loaded = parser.loaded();
    if (loaded) return isReadOnlyBashCommand(loaded, command);
    void parser.load().catch(() => undefined);
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
      parser: parser.load,
      persistRule,
      bashSandboxed: sandbox.enabled,
      classifier,
      isReadableOutsidePath: isSavedToolResult,
    });
  const gate = createGate(store);
  const homeDir = options.homeDir ?? homedir();
  // A workspace on a worker: its memory files and git status are read there, over the protocol.
  const memoryFs = options.remoteWorkspace ? createWorkerMemoryFs(workspace, createNodeMemoryFs()) : createNodeMemoryFs();
  const today = () => new Date().toISOString().slice(0, 10);
  // Every session of the workspace reads the memory files and skills through one source: loaded and watched once.
  const memorySource = createMemorySource({ fs: memoryFs, workspaceRoot: workspace.root, homeDir, cairnHome: options.cairnHome });
  const environment = { cwd: workspace.root, platform: process.platform, date: today(), model: model.model };
  const systemPrompt = buildSystemPrompt(environment);
  const gitSnapshot = sharedGitSnapshots(workspace.root, options.remoteWorkspace ? { take: () => takeWorkerGitSnapshot(workspace.git) } : {});
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
    options.dumpPrompts
      ? model.clientWithFetch(createPromptDumpFetch(promptDumpPath(options.cairnHome, sessionId, agentId), options.modelFetch))
      : model.client;
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
        memory: createSessionMemory({ source: memorySource, today, trusted: () => trusted }),
      };
    },
    sessionServices: (sessionOptions) =>
      buildSessionServices(
        {
          cairnHome: options.cairnHome,
          version: options.version,
          workspaceRoot: workspace.root,
          definitions: agents.definitions,
          client: model.client,
          modelFor: options.dumpPrompts ? ({ sessionId, agentId }) => modelClient(sessionId, agentId) : undefined,
          systemPrompt,
          queryConfig,
          createCompactor: (hooks) => createSessionCompactor(hooks),
          fallbackModel: options.fallbackModel,
          mcp,
          transcripts,
        },
        sessionOptions,
      ),
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
      memorySource.close();
      await mcp.close();
      await workspace.dispose();
      await model.close();
      await transcripts.close();
    },
  };
}

/**
 * This machine's workspace: served by a local worker process (started now, in parallel with the rest of the start;
 * nothing waits for it until the first workspace call), or in this process when asked (`cairn -p`). Each loads only
 * its own modules, from a subpath: the package root's index would build every worker module's schemas at start.
 */
async function openLocalWorkspace(options: RuntimeOptions, settings: LocalWorkspaceOptions): Promise<WorkerWorkspace> {
  if (options.inProcessWorkspace === true) return (await import("@cairn/worker/local")).createLocalWorkspace(settings);
  const { createWorkerProcessWorkspace } = await import("@cairn/worker/worker-process");
  return createWorkerProcessWorkspace({ ...settings, ...(options.workerScript ? { workerScript: options.workerScript } : {}) });
}

/** The environment's budget beats the setting, as Claude Code's MAX_THINKING_TOKENS does. */
function thinkingSetting(maxThinkingTokens: number | undefined, setting: ThinkingSetting | undefined): ThinkingSetting {
  if (maxThinkingTokens === undefined) return setting ?? "auto";
  return maxThinkingTokens === 0 ? "off" : { budgetTokens: maxThinkingTokens };
}
