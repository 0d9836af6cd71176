// The runtime-neutral engine. Node-only implementations live at `@cairn/core/node`.
export { ModelError, isModelError, modelErrorCodes } from "./model/port.ts";
export type {
  ApiMessage,
  ApiTool,
  ModelClient,
  ModelErrorCode,
  ModelRequest,
  ModelStreamPart,
  SystemBlock,
  ThinkingConfig,
} from "./model/port.ts";
export { WorkspaceError, workspaceErrorCodes } from "./workspace/port.ts";
export type {
  BackgroundJob,
  BackgroundOutput,
  DirEntry,
  ExecOptions,
  ExecResult,
  FileKind,
  FileStat,
  GlobResult,
  GrepOutputMode,
  GrepQuery,
  GrepResult,
  OutputChunk,
  WatchEvent,
  Workspace,
  WorkspaceErrorCode,
} from "./workspace/port.ts";
export { findToolByName } from "./tools/tool.ts";
export type {
  AnyTool,
  ContextModifier,
  ReadFileState,
  Tool,
  ToolCall,
  ToolProgress,
  ToolResult,
  ToolUseContext,
  ValidationResult,
} from "./tools/tool.ts";
export { allowAllGate, headlessPrompter } from "./permissions/port.ts";
export type {
  PermissionCheckArgs,
  PermissionCheckResult,
  PermissionGate,
  PermissionPrompter,
  PermissionRequest,
} from "./permissions/port.ts";
export { emptyHookOutcome, hookEventNames, noHooks } from "./hooks/port.ts";
export type { HookDispatcher, HookEventName, HookInput, HookOutcome } from "./hooks/port.ts";
export { createInitialAppState } from "./state/app-state.ts";
export type { AppState, McpServerStatus } from "./state/app-state.ts";
export { createStore } from "./state/store.ts";
export { Notifier } from "./state/notifier.ts";
export type { Listener, Store } from "./state/store.ts";
export type { DeepImmutable } from "./state/deep-immutable.ts";
export type { TranscriptSink } from "./session/port.ts";
export { query } from "./loop/query.ts";
export type { QueryParams } from "./loop/query-params.ts";
export { runPrompt } from "./loop/run-prompt.ts";
export { resumeTurn, unansweredToolCalls } from "./loop/resume-turn.ts";
export type { ResumeTurnOptions, UnansweredToolCalls } from "./loop/resume-turn.ts";
export { manualCompaction } from "./loop/manual-compaction.ts";
export type { CompactionFigures, ManualCompactionOutcome } from "./loop/manual-compaction.ts";
export type { RunPromptOptions, RunPromptResult } from "./loop/run-prompt.ts";
export { abortableSleep, productionDeps } from "./loop/deps.ts";
export type { QueryDeps } from "./loop/deps.ts";
export { defaultQueryConfig } from "./loop/config.ts";
export type { QueryConfig } from "./loop/config.ts";
export { createUserMessage, messagesAfterCompactBoundary } from "./loop/messages.ts";
export { createAnthropicModelClient, toModelError } from "./model/anthropic-client.ts";
export type { AnthropicClientOptions } from "./model/anthropic-client.ts";
export { callModel } from "./model/call-model.ts";
export { normalizeMessagesForAPI } from "./model/normalize.ts";
export { buildModelRequest, toApiTool } from "./model/request.ts";
export { applyCacheBreakpoints, countCacheBreakpoints, promptCachingFor } from "./model/cache-control.ts";
export type { PromptCachingMode } from "./model/cache-control.ts";
export { thinkingConfigFor } from "./model/thinking.ts";
export type { ThinkingSetting } from "./model/thinking.ts";
export { modelCapabilities } from "./model/model-capabilities.ts";
export { defaultRetryPolicy } from "./model/retry.ts";
export type { RetryPolicy } from "./model/retry.ts";
export { runToolUse } from "./tools/pipeline.ts";
export type { PipelineServices, ToolRunOutcome } from "./tools/pipeline-types.ts";
export { partitionToolCalls } from "./tools/partition.ts";
export { classifyToolError } from "./tools/classify-error.ts";
export { applyResultBudget } from "./tools/result-budget.ts";
export { TOOL_RESULT_FILES_SERVICE } from "./tools/tool-result-files.ts";
export { noCompaction } from "./compact/port.ts";
export { forgetUnseenFiles } from "./compact/read-file-state.ts";
export type { CompactionInput, CompactionResult, Compactor } from "./compact/port.ts";
export { compactNow, createCompactor } from "./compact/compactor.ts";
export type { CairnCompactor, CompactorState, ContextUsageInput, ManualCompaction } from "./compact/compactor.ts";
export type { CompactorOptions, CompactorSettings } from "./compact/compactor-options.ts";
export { CompactionError, compactionErrorCodes } from "./compact/errors.ts";
export type { CompactionErrorCode } from "./compact/errors.ts";
export { contextUsage, contextWindowForModel, estimateMessageTokens, estimateTokens, resolveContextLimits } from "./compact/tokens.ts";
export type { ContextLimitOptions, ContextLimits, ContextUsage } from "./compact/tokens.ts";
export { estimateCostUsd } from "./model/pricing.ts";
export {
  bashLimits,
  bashOutputTool,
  bashTool,
  builtinTools,
  createBashOutputTool,
  createBashTool,
  createEditTool,
  createGlobTool,
  createGrepTool,
  createKillShellTool,
  createReadTool,
  createTodoWriteTool,
  createWriteTool,
  editTool,
  globTool,
  grepTool,
  killShellTool,
  readLimits,
  readTool,
  todoWriteTool,
  writeTool,
  type BashProgress,
  type BashToolOptions,
  type BuiltinToolsOptions,
  type PatchHunk,
  type ToolFailureOutput,
} from "./tools/builtin/index.ts";
export { agentInputSchema, createAgentTool, type AgentInput, type AgentLaunchOutput, type AgentOutput } from "./tools/builtin/index.ts";
export { createEnterPlanModeTool } from "./tools/builtin/index.ts";
export { PLAN_MODE_REMINDER, modelForMode } from "./loop/plan-mode.ts";
export { MODEL_ALIASES, resolveModelAlias } from "./model/model-aliases.ts";
export { BACKGROUND_AGENTS_SERVICE, BackgroundAgents, backgroundAgentsOf, taskNotificationText } from "./agents/background-agents.ts";
export type { BackgroundAgentOutcome, BackgroundAgentView, TaskNotification } from "./agents/background-agents.ts";
// MCP client (runtime-neutral; Node transports live at @cairn/core/node).
export {
  describeServer,
  expandEnvVars,
  expandServerConfig,
  isStdioServerConfig,
  mcpServerSources,
  mergeMcpServers,
  parseMcpConfigText,
  parseMcpConfigValue,
  requiresTrust,
} from "./mcp/config.ts";
export type { McpConfigProblem, McpRemoteServerConfig, McpServerEntry, McpServerSource, McpStdioServerConfig } from "./mcp/config.ts";
export { defaultReconnectPolicy, McpConnection } from "./mcp/connection.ts";
export type { McpCallOptions, McpLaunchInfo, McpReconnectPolicy, McpToolDefinition, McpTransportFactory } from "./mcp/connection.ts";
export { isMcpError, McpError, mcpErrorCodes } from "./mcp/errors.ts";
export type { McpErrorCode } from "./mcp/errors.ts";
export { DEFAULT_MCP_CONNECT_TIMEOUT_MS, McpManager } from "./mcp/manager.ts";
export type { McpManagerOptions, McpServerInfo, McpToolSet, McpTransportKind } from "./mcp/manager.ts";
export { createMcpTool, DEFAULT_MCP_TOOL_TIMEOUT_MS, MAX_MCP_DESCRIPTION_CHARS } from "./mcp/mcp-tool.ts";
export type { McpToolOptions, McpToolOutput } from "./mcp/mcp-tool.ts";
export { buildMcpToolName, findMcpServerConnection, mcpInfoFromString, normalizeNameForMCP } from "./mcp/names.ts";
export { mcpContentToBlocks, mcpResultToContent } from "./mcp/result.ts";
export {
  createToolSearchTool,
  DEFAULT_TOOL_SEARCH_SHARE,
  discoveredToolNames,
  estimateToolTokens,
  planToolExposure,
  searchTools,
  TOOL_SEARCH_NAME,
  toolsWithDiscovered,
} from "./mcp/tool-search.ts";
export type { ToolSearchInput, ToolSearchOutput } from "./mcp/tool-search.ts";
// Subagents: definitions, the service behind the Agent tool.
export { agentDefinitionSchema, GENERAL_PURPOSE_AGENT_TYPE, generalPurposeAgent, mergeAgentDefinitions, parseAgentFile } from "./agents/definition.ts";
export type { AgentDefinition, AgentFileProblem } from "./agents/definition.ts";
export { frontMatterList, frontMatterText, parseFrontMatter, type FrontMatter, type FrontMatterResult } from "./agents/front-matter.ts";
export { loadAgentDefinitions } from "./agents/load.ts";
export type { AgentFiles } from "./agents/load.ts";
export { SUBAGENT_SERVICE, SubagentError, subagentErrorCodes, subagentServiceOf } from "./agents/service.ts";
export type { SubagentErrorCode, SubagentProgress, SubagentRunRequest, SubagentRunResult, SubagentService } from "./agents/service.ts";
export { AGENT_TOOL_NAMES, agentIdFrom, createSubagentService, defaultResolveModel, subagentTools } from "./agents/subagent-service.ts";
export type { SubagentServiceOptions, SubagentTranscript } from "./agents/subagent-service.ts";
// Permissions, settings and hooks (runtime-neutral).
export { createPermissionEngine } from "./permissions/engine.ts";
export { createModelActionClassifier } from "./permissions/auto-mode/model-classifier.ts";
export type { PermissionEngine, PermissionEngineOptions } from "./permissions/engine.ts";
export { parseRuleValue, formatRuleValue, escapeRuleContent, splitToolListFlag } from "./permissions/rule-parser.ts";
export type { RuleValue, RuleParseResult } from "./permissions/rule-parser.ts";
export { compileRule, compilePathPattern, ruleMatchesSubject, ruleToolCovers, readToolFamily, editToolFamily } from "./permissions/rule-matcher.ts";
export type { CompiledRule, PermissionRule, RuleMatcher, RuleSubject, PathRuleRoots } from "./permissions/rule-matcher.ts";
export {
  assertBypassPermissionsAllowed,
  checkBypassPermissionsAllowed,
  isProtectedPath,
  permissionModeDescriptions,
  PermissionModeError,
  protectedDirectoryNames,
} from "./permissions/modes.ts";
export type { BypassCheckInput } from "./permissions/modes.ts";
export { commandPrefix, suggestRules } from "./permissions/suggestions.ts";
export { decisionReasonToOTelSource } from "./permissions/telemetry.ts";
export type { OTelDecisionSource } from "./permissions/telemetry.ts";
export {
  hookCommandSchema,
  hookMatcherSchema,
  hooksSettingsSchema,
  mcpServerConfigSchema,
  permissionsSettingsSchema,
  sandboxSettingsSchema,
  settingsFileSchema,
  settingsProblemSchema,
  settingsSourceSchema,
} from "./permissions/settings-schema.ts";
export type {
  HookCommandConfig,
  HookMatcherConfig,
  HooksSettings,
  McpServerConfig,
  SandboxSettings,
  SettingsFile,
  SettingsProblem,
  SettingsSource,
} from "./permissions/settings-schema.ts";
export { mergeSettings, ruleSourcePriority, settingsSourcePriority } from "./permissions/settings-merge.ts";
export type { CliPermissionInput, HookGroup, MergedSettings, SettingsLayer } from "./permissions/settings-merge.ts";
export { formatJsonPath, parseSettingsText, validateSettingsValue } from "./permissions/settings-validate.ts";
export type { RuleOrigins, ValidatedSettings } from "./permissions/settings-validate.ts";
export { createShellParser, MAX_ANALYSED_COMMAND_LENGTH, ShellParserError } from "./permissions/shell/shell-parser.ts";
export type { ShellParser, ShellWasmLoader } from "./permissions/shell/shell-parser.ts";
export type { RedirectKind, ShellAnalysis, ShellAssignment, ShellRedirect, ShellWord, SimpleCommand } from "./permissions/shell/types.ts";
export { isReadOnlyAnalysis, isReadOnlyBashCommand, isReadOnlySimpleCommand, readOnlyCommandNames } from "./permissions/shell/read-only.ts";
export { dangerousCommandReason, unwrapCommand } from "./permissions/shell/command-safety.ts";
export { evaluateBashCommands, findBashRuleHit } from "./permissions/shell/bash-rules.ts";
export { denyCandidateArgvs } from "./permissions/shell/deny-candidates.ts";
export { createHookDispatcher, DEFAULT_HOOK_TIMEOUT_MS } from "./hooks/dispatcher.ts";
export { dispatchNotification, dispatchSessionEnd, dispatchSessionStart } from "./hooks/session-events.ts";
export type { HookNotification, SessionEndReason, SessionStartSource } from "./hooks/session-events.ts";
export type { HookDispatcherOptions } from "./hooks/dispatcher.ts";
export { compileHookMatcher } from "./hooks/matcher.ts";
export { hookJsonOutputSchema, interpretHookResult } from "./hooks/hook-output.ts";
export type { HookJsonOutput, HookVerdict } from "./hooks/hook-output.ts";
export type { HookRunner, HookRunRequest, HookRunResult } from "./hooks/port.ts";
// Session persistence (runtime-neutral): resume repair, head-and-tail summaries, Markdown.
export { INTERRUPTED_TOOL_RESULT, repairForResume, sinceLastCompactBoundary } from "./session/repair.ts";
export type { RepairOptions } from "./session/repair.ts";
export { TranscriptIndex, TranscriptIndexError } from "./session/transcript-index.ts";
export { loadTranscriptLines } from "./session/load-lines.ts";
export type { TranscriptContents } from "./session/load-lines.ts";
export type { LoadReport, LoadScope, PlanOptions } from "./session/transcript-index.ts";
export { summarizeHeadAndTail } from "./session/head-tail.ts";
export type { HeadAndTailSample, SessionSummary } from "./session/head-tail.ts";
export { linearize } from "./session/linearize.ts";
export { renderMarkdown } from "./session/markdown.ts";
export type { MarkdownHeader } from "./session/markdown.ts";
export type {
  AgentEvent,
  AgentEventOf,
  AgentEventType,
  AssistantMessage,
  ContentBlock,
  ConversationMessage,
  DecisionReason,
  PermissionAnswer,
  PermissionMode,
  SystemMessage,
  Terminal,
  TodoItem,
  ToolCallRecord,
  ToolResultBlock,
  ToolUseBlock,
  Usage,
  UsageTotals,
  UserMessage,
} from "./schema/index.ts";
// Memory files (CLAUDE.md and imports), skills and slash commands.
export { createSessionMemory, MEMORY_SERVICE, sessionMemoryOf } from "./memory/session-memory.ts";
export { createMemorySource, type MemorySource } from "./memory/memory-source.ts";
export type { MemoryOverview, MemoryPrefetch, SessionMemory, SessionMemoryOptions } from "./memory/session-memory.ts";
export { MAX_IMPORT_DEPTH, MAX_MEMORY_FILE_CHARS } from "./memory/port.ts";
export type { MemoryFile, MemoryFs, MemoryKind, MemoryNotice, MemoryNoticeCode } from "./memory/port.ts";
export type { SkillDefinition, SkillProblem } from "./skills/definition.ts";
export type { SkillCatalog } from "./skills/discover.ts";
export { grantSkillTools, renderSkillPrompt, revokeSkillTools, useSkillModel } from "./skills/invoke.ts";
export { createSkillTool, SKILL_TOOL_NAME } from "./skills/skill-tool.ts";
export { builtinSlashCommands, parseSlashCommand, renderSlashHelp, renderSlashPrompt, resolveSlashCommand, slashCommandList } from "./skills/slash-command.ts";
export type { BuiltinSlashCommand, SlashCommandInfo, SlashInvocation } from "./skills/slash-command.ts";
