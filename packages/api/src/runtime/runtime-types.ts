import type {
  AgentDefinition,
  AgentFileProblem,
  AnyTool,
  AppState,
  BackgroundAgents,
  CairnCompactor,
  ConversationMessage,
  createPermissionEngine,
  HookDispatcher,
  McpManager,
  ModelClient,
  PermissionGate,
  PermissionPrompter,
  QueryConfig,
  QueryDeps,
  SessionMemory,
  Store,
} from "@cairn/core";
import type { LoadedSettings } from "@cairn/core/node";
import type { PermissionMode } from "@cairn/core/schema";
import type { WorkerWorkspace } from "@cairn/worker";
import type { RemoteWorkspaceInit } from "../workers/worker-mode.ts";
import type { Telemetry } from "../telemetry/telemetry-port.ts";
import type { SessionStore, SessionStoreFactory, SessionTranscriptSink } from "../session-store/session-store.ts";
import type { LocalSettingsStore, LocalSettingsStoreFactory } from "./local-settings.ts";
import type { ModelSource } from "./model-source.ts";

export type RuntimeOptions = {
  workspaceRoot: string;
  cairnHome: string;
  /** The user's home: `~/.claude/CLAUDE.md`, `~/.claude/skills`, `~/` in imports (default: the OS's). */
  homeDir?: string | undefined;
  version: string;
  apiKey?: string | undefined;
  baseURL?: string | undefined;
  /** The `fetch` model requests go through (default: Node's). `cairn -p` gives `httpFetch`, which does not load undici. */
  modelFetch?: typeof fetch | undefined;
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
  /**
   * The script of the local worker process that serves this machine's workspace (the tools, files, search, git and
   * terminal, over the worker protocol, as a remote worker would): `cairn` passes its bundled worker; default
   * `@cairn/worker`'s bin/worker.js, which runs the TypeScript sources through tsx.
   */
  workerScript?: string | undefined;
  /** Serve the workspace in this process instead of a local worker process (`cairn -p`, whose cold start is measured). */
  inProcessWorkspace?: boolean | undefined;
  /**
   * Opens the workspace on a `cairn worker --listen` host instead of in this process (`cairn serve --worker-url`),
   * given the sandbox and environment the settings ask for; the runtime closes it.
   */
  remoteWorkspace?: ((init: RemoteWorkspaceInit) => Promise<WorkerWorkspace>) | undefined;
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
