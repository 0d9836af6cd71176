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
export type { Listener, Store } from "./state/store.ts";
export type { DeepImmutable } from "./state/deep-immutable.ts";
export type { TranscriptSink } from "./session/port.ts";
export { query } from "./loop/query.ts";
export type { QueryParams } from "./loop/query.ts";
export { runPrompt } from "./loop/run-prompt.ts";
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
export { applyCacheBreakpoints, countCacheBreakpoints } from "./model/cache-control.ts";
export { defaultRetryPolicy } from "./model/retry.ts";
export type { RetryPolicy } from "./model/retry.ts";
export { partitionToolCalls } from "./tools/partition.ts";
export { classifyToolError } from "./tools/classify-error.ts";
export { applyResultBudget } from "./tools/result-budget.ts";
export { noCompaction } from "./compact/port.ts";
export type { CompactionInput, CompactionResult, Compactor } from "./compact/port.ts";
export { estimateCostUsd } from "./model/pricing.ts";
export { bashLimits, bashOutputTool, bashTool, builtinTools, createBashOutputTool, createBashTool, createEditTool, createGlobTool, createGrepTool, createKillShellTool, createReadTool, createTodoWriteTool, createWriteTool, editTool, globTool, grepTool, killShellTool, readLimits, readTool, todoWriteTool, writeTool, type BashProgress, type BashToolOptions, type BuiltinToolsOptions, type PatchHunk, type ToolFailureOutput } from "./tools/builtin/index.ts";
