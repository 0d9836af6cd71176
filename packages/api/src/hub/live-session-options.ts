import type { QueryDeps } from "@cairn/core";
import type { ConversationMessage, PermissionMode } from "@cairn/core/schema";
import type { Runtime } from "../runtime/runtime-types.ts";
import type { EventBus } from "./event-bus.ts";
import type { LiveSession } from "./live-session.ts";

export type LiveSessionOptions = {
  sessionId: string;
  runtime: Runtime;
  bus: EventBus;
  /** The conversation already on disk (empty for a new session). */
  history?: ConversationMessage[];
  title?: string;
  updatedAt?: string;
  model?: string;
  permissionMode?: PermissionMode;
  /** `clear`: the session was started by `/clear`, which its first prompt's SessionStart hooks are told. */
  startSource?: "clear";
  maxQueuedPrompts?: number;
  /**
   * Takes the file checkpoint for a prompt (`message` is its user message). Called once per prompt,
   * just before the first tool call that may change something, so chat-only prompts cost nothing.
   */
  checkpoint?: (session: LiveSession, message: ConversationMessage, signal: AbortSignal) => Promise<void>;
  deps?: (runtime: Runtime) => QueryDeps;
};
