import type { z } from "zod";
import type { ContentBlock, ToolResultContent } from "../schema/content.ts";
import type { AssistantMessage, ConversationMessage } from "../schema/messages.ts";
import type { AppState } from "../state/app-state.ts";
import type { Workspace } from "../workspace/port.ts";
import type { PermissionCheckResult } from "../permissions/port.ts";

/** What a tool knows about files it has read, so Edit and Write can refuse stale or unread files. */
export type ReadFileState = Map<string, { mtimeMs: number; size: number; readAt: number; partial: boolean }>;

export type ToolUseContext = {
  sessionId: string;
  /** The workspace root; tool paths are absolute inside it. */
  cwd: string;
  signal: AbortSignal;
  workspace: Workspace;
  tools: readonly Tool[];
  /** The conversation as the model saw it in this turn. */
  messages: readonly ConversationMessage[];
  readFileState: ReadFileState;
  getAppState(): AppState;
  setAppState(update: (state: AppState) => AppState): void;
  /** Set for subagents: their id, so transcripts and events can be told apart. */
  agentId?: string;
  /** Extra, tool-specific services (subagent runner, MCP manager) keyed by name. */
  services: Readonly<Record<string, unknown>>;
};

export type ContextModifier = (context: ToolUseContext) => ToolUseContext;

export type ToolResult<Output = unknown> = {
  /** Structured output, kept as the transcript's `toolUseResult` and shown by the UI. */
  output: Output;
  /** What the model sees as the tool_result content; defaults to the tool's `renderResult` or JSON of output. */
  content?: ToolResultContent;
  isError?: boolean;
  contextModifier?: ContextModifier;
};

export type ToolProgress = { data: unknown };

export type ToolCall<Output> = Promise<ToolResult<Output>> | AsyncGenerator<ToolProgress, ToolResult<Output>, void>;

export type ValidationResult = { ok: true } | { ok: false; message: string; code?: string };

/**
 * A tool is data plus one `call`. Its input schema is the single source of truth for validation
 * and for the JSON Schema sent to the model.
 */
// biome-ignore lint/suspicious/noExplicitAny: the default keeps Tool<Specific> assignable to Tool (input is contravariant).
export type Tool<Input = any, Output = unknown> = {
  readonly name: string;
  readonly aliases?: readonly string[];
  readonly inputSchema: z.ZodType<Input>;
  /** Overrides the JSON Schema derived from `inputSchema` (MCP tools bring their own). */
  readonly inputJsonSchema?: Record<string, unknown>;
  readonly description: string;
  /** For permission rules that name the tool by something other than its name (e.g. MCP). */
  readonly mcpInfo?: { serverName: string; toolName: string };
  isReadOnly(input: Input): boolean;
  isConcurrencySafe(input: Input): boolean;
  isEnabled?(): boolean;
  validateInput?(input: Input, context: ToolUseContext): Promise<ValidationResult>;
  /** Tool-specific permission logic; the engine's rules, modes and hooks come around it. */
  checkPermissions?(input: Input, context: ToolUseContext): Promise<PermissionCheckResult>;
  /** The file a call touches, for path rules and the workspace check. */
  getPath?(input: Input): string | undefined;
  call(input: Input, context: ToolUseContext, meta: { toolUseId: string; assistantMessage: AssistantMessage }): ToolCall<Output>;
  /** Turns the structured output into what the model reads. */
  renderResult?(output: Output, toolUseId: string): ToolResultContent;
  /** What the model reads when the user rejects the call; default: stop and wait for the user. */
  rejectionMessage?(feedback: string | undefined): string;
  /** Results longer than this are cut with a marker (the tool-result budget). */
  readonly maxResultChars?: number;
};

// biome-ignore lint/suspicious/noExplicitAny: a list holds tools of every input and output type.
export type AnyTool = Tool<any, any>;

export function findToolByName(tools: readonly Tool[], name: string): Tool | undefined {
  return tools.find((tool) => tool.name === name) ?? tools.find((tool) => tool.aliases?.includes(name));
}

export function textContent(blocks: ContentBlock[]): string {
  return blocks.flatMap((block) => (block.type === "text" ? [block.text] : [])).join("");
}
