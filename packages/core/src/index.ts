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
