import type { AgentEvent, HookNotification } from "@cairn/core";
import type { ConversationMessage } from "@cairn/core/schema";
import type { PermissionBroker } from "./permission-broker.ts";
import { contextTokensOf, permissionRequestOf } from "./session-derive.ts";

/** Ends of a run that an error caused (the others ended normally or were interrupted). */
const RUN_ERROR_REASONS: ReadonlySet<string> = new Set(["model_error", "prompt_too_long", "blocking_limit"]);

/** What of a live session its events change. */
export type SessionEventTarget = {
  history: ConversationMessage[];
  broker: PermissionBroker;
  /** A message arrived at `timestamp`. */
  messageAt(timestamp: string): void;
  /** A response reported how many tokens the context holds now. */
  contextTokens(tokens: number): void;
  /** An error ended the run (the idle notification says so). */
  stoppedBy(reason: string): void;
  notify(notification: HookNotification): void;
};

/** Keeps a live session's conversation, live numbers and permission prompts in step with its events. */
export function observeSessionEvent(event: AgentEvent, target: SessionEventTarget): void {
  switch (event.type) {
    case "message": {
      target.history.push(event.message);
      target.messageAt(event.message.timestamp);
      if (event.message.type !== "assistant") return;
      const tokens = contextTokensOf(event.message);
      if (tokens !== null) target.contextTokens(tokens);
      return;
    }
    case "tombstone": {
      const index = event.uuid === undefined ? -1 : target.history.findIndex((message) => message.uuid === event.uuid);
      if (index >= 0) target.history.splice(index, 1);
      return;
    }
    case "result":
      if (RUN_ERROR_REASONS.has(event.terminal.reason)) target.stoppedBy(event.terminal.error?.message ?? event.terminal.reason);
      return;
    case "permission-request":
      target.notify({ notificationType: "permission_prompt", message: `Cairn needs your permission to use ${event.toolName}` });
      target.broker.announce(permissionRequestOf(event));
      return;
    case "permission-resolved":
      target.broker.settle(event.requestId);
      return;
    default:
      return;
  }
}
