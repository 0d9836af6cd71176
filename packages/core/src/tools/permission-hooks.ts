import { hookOutcomeNotices } from "../hooks/session-events.ts";
import type { HookEventName, HookOutcome } from "../hooks/port.ts";
import type { PermissionCheckArgs } from "../permissions/port.ts";
import type { AgentEvent } from "../schema/events.ts";
import type { DecisionReason } from "../schema/permissions.ts";

export type Decided =
  | { behavior: "allow"; reason: DecisionReason; waitedMs: number; asked: boolean; updatedInput?: Record<string, unknown> }
  | { behavior: "deny"; reason: DecisionReason; waitedMs: number; asked: boolean; message: string; stop?: { hookName: string; stopReason?: string } };

export type DispatchHooks = (event: HookEventName, input: Record<string, unknown>, matchValue: string) => Promise<HookOutcome>;

/**
 * `PermissionRequest` hooks, run when the permission prompt is about to be shown: they may answer it
 * (allow, possibly with an `updatedInput`, or deny, possibly stopping the run) before anyone is asked.
 * Undefined when no hook answered.
 */
export async function* askPermissionHooks(
  args: PermissionCheckArgs,
  suggestions: readonly string[],
  dispatchHooks: DispatchHooks,
): AsyncGenerator<AgentEvent, Decided | undefined> {
  const outcome = await dispatchHooks(
    "PermissionRequest",
    {
      tool_name: args.tool.name,
      tool_input: args.input,
      tool_use_id: args.toolUseId,
      permission_suggestions: suggestions.map((rule) => ({ type: "addRules", rules: [rule], behavior: "allow" })),
    },
    args.tool.name,
  );
  yield* hookOutcomeNotices("PermissionRequest", outcome);
  if (outcome.preventContinuation) {
    const why = outcome.preventContinuation.stopReason ? `: ${outcome.preventContinuation.stopReason}` : "";
    const reason: DecisionReason = { type: "hook", hookName: outcome.preventContinuation.hookName, reason: "continue: false" };
    return {
      behavior: "deny",
      reason,
      waitedMs: 0,
      asked: false,
      message: `Execution stopped by a PermissionRequest hook${why}`,
      stop: outcome.preventContinuation,
    };
  }
  if (outcome.blocked) {
    const reason: DecisionReason = { type: "hook", hookName: outcome.blocked.hookName, reason: outcome.blocked.reason };
    return { behavior: "deny", reason, waitedMs: 0, asked: false, message: `PermissionRequest hook denied this call: ${outcome.blocked.reason}` };
  }
  const answer = outcome.permissionRequest;
  if (!answer) return undefined;
  if (answer.behavior === "allow") {
    const reason: DecisionReason = { type: "hook", hookName: answer.hookName, reason: "PermissionRequest hook allowed" };
    return { behavior: "allow", reason, waitedMs: 0, asked: false, ...(answer.updatedInput ? { updatedInput: answer.updatedInput } : {}) };
  }
  const message = answer.message ?? "A PermissionRequest hook denied this call.";
  const reason: DecisionReason = { type: "hook", hookName: answer.hookName, reason: message };
  return {
    behavior: "deny",
    reason,
    waitedMs: 0,
    asked: false,
    message: `PermissionRequest hook denied this call: ${message}`,
    ...(answer.interrupt ? { stop: { hookName: answer.hookName, stopReason: message } } : {}),
  };
}
