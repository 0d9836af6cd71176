import { randomUUID } from "node:crypto";
import type { AgentEvent, PermissionRequest } from "@cairn/core";
import type { ConversationMessage } from "@cairn/core/schema";
import type { SessionStateEvent } from "../router/types.ts";

/** Small derivations of a session's conversation and state, kept apart from the session's lifecycle. */

export function sameState(left: SessionStateEvent, right: SessionStateEvent): boolean {
  return (
    left.running === right.running &&
    left.permissionMode === right.permissionMode &&
    left.model === right.model &&
    left.contextTokens === right.contextTokens &&
    left.queued === right.queued &&
    JSON.stringify(left.todos) === JSON.stringify(right.todos) &&
    JSON.stringify(left.backgroundAgents) === JSON.stringify(right.backgroundAgents)
  );
}

export function contextTokensOf(message: ConversationMessage): number | null {
  if (message.type !== "assistant") return null;
  const usage = message.message.usage;
  if (!usage) return null;
  return (usage.input_tokens ?? 0) + (usage.cache_read_input_tokens ?? 0) + (usage.cache_creation_input_tokens ?? 0) + (usage.output_tokens ?? 0);
}

export function lastContextTokens(history: readonly ConversationMessage[]): number | null {
  for (let index = history.length - 1; index >= 0; index--) {
    const tokens = contextTokensOf(history[index]!);
    if (tokens !== null) return tokens;
  }
  return null;
}

export function titleOf(history: readonly ConversationMessage[]): string | undefined {
  for (const message of history) {
    if (message.type !== "user" || message.isMeta === true) continue;
    const content = message.message.content;
    const text = typeof content === "string" ? content : content.flatMap((block) => (block.type === "text" ? [block.text] : [])).join(" ");
    if (text.trim()) return shorten(text);
  }
  return undefined;
}

export function shorten(text: string): string {
  const line = text.trim().replace(/\s+/g, " ");
  return line.length > 80 ? `${line.slice(0, 77)}…` : line;
}

/** A subagent's permission question or answer, nested in the Agent tool's progress. */
export function subagentPermissionEvent(event: AgentEvent): AgentEvent | undefined {
  if (event.type !== "tool-progress" || typeof event.data !== "object" || event.data === null) return undefined;
  const data = event.data as { type?: unknown; event?: AgentEvent };
  if (data.type !== "subagent" || !data.event) return undefined;
  return data.event.type === "permission-request" || data.event.type === "permission-resolved" ? data.event : undefined;
}

/** The question a `permission-request` event carries, as the broker keeps it. */
export function permissionRequestOf(event: Extract<AgentEvent, { type: "permission-request" }>): PermissionRequest {
  return {
    requestId: event.requestId,
    toolUseId: event.toolUseId,
    toolName: event.toolName,
    input: event.input,
    reason: event.reason,
    suggestions: event.suggestions,
    ...(event.message !== undefined ? { message: event.message } : {}),
  };
}

/** A meta user message (a note about something the user did outside the conversation), not shown as the user's words. */
export function metaNote(text: string, parentUuid: string | null): ConversationMessage {
  return {
    type: "user",
    uuid: randomUUID(),
    timestamp: new Date().toISOString(),
    parentUuid,
    isMeta: true,
    message: { role: "user", content: `<system-reminder>${text}</system-reminder>` },
  };
}

/** The text a user typed in a prompt line, for the box a rewind fills again; null for meta lines and tool results. */
export function promptText(message: ConversationMessage): string | null {
  if (message.type !== "user" || message.isMeta === true) return null;
  const content = message.message.content;
  if (typeof content === "string") return content;
  if (content.some((block) => block.type === "tool_result")) return null;
  return content.flatMap((block) => (block.type === "text" ? [block.text] : [])).join("\n") || null;
}

/** A session's title before its first prompt. */
export const NEW_SESSION_TITLE = "New session";
