import type { HookDispatcher } from "../hooks/port.ts";
import type { SessionMemory } from "../memory/session-memory.ts";
import type { PermissionGate, PermissionPrompter } from "../permissions/port.ts";
import type { ConversationMessage } from "../schema/messages.ts";
import type { Tool, ToolUseContext } from "../tools/tool.ts";
import type { QueryConfig } from "./config.ts";
import type { QueryDeps } from "./deps.ts";

export type QueryParams = {
  /** The conversation so far, ending with the new prompt. */
  messages: ConversationMessage[];
  /** System prompt blocks; the first is the stable, cacheable prefix. */
  systemPrompt: readonly string[];
  tools: readonly Tool[];
  model: string;
  /** The model used while the session is in plan mode (`planModel`); the session's model comes back after. */
  planModel?: string;
  fallbackModel?: string;
  betas?: readonly string[];
  /** Sent as the request's `metadata` (e.g. an opaque `user_id`). */
  metadata?: { user_id?: string };
  maxTurns?: number;
  /** Output tokens to spend before the run may end (Claude Code's token budget); each continuation carries a nudge. Not for subagents. */
  tokenBudget?: number;
  /** Before ending, wait for background agents still running and continue with their results (`cairn -p`). */
  awaitBackgroundAgents?: boolean;
  signal: AbortSignal;
  /** Workspace, app state, read-file state and services for tools; the loop sets signal, tools and messages. */
  context: Omit<ToolUseContext, "signal" | "tools" | "messages">;
  gate?: PermissionGate;
  prompter?: PermissionPrompter;
  hooks?: HookDispatcher;
  /** Memory files and skills, re-checked at the top of every iteration and sent at the start of the conversation. */
  memory?: Pick<SessionMemory, "prefetch">;
  deps: QueryDeps;
  config?: Partial<QueryConfig>;
};
