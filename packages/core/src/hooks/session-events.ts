import type { AgentEvent } from "../schema/events.ts";
import { hookRunsOf } from "../tools/hook-runs.ts";
import type { HookDispatcher, HookEventName, HookOutcome } from "./port.ts";

export type SessionStartSource = "startup" | "resume" | "clear" | "compact";

/** What one dispatch means for the user: its errors, its notices and the hooks' `systemMessage`s. */
export function hookOutcomeNotices(event: HookEventName, outcome: HookOutcome): AgentEvent[] {
  return [
    ...outcome.errors.map(
      (error): AgentEvent => ({ type: "notice", level: "warning", code: "hook_error", message: `${event} hook ${error.hookName}: ${error.message}` }),
    ),
    ...outcome.notices.map(
      (notice): AgentEvent => ({ type: "notice", level: "info", code: "hook_notice", message: `${event} hook ${notice.hookName} ${notice.message}` }),
    ),
    ...outcome.systemMessages.map((message): AgentEvent => ({ type: "notice", level: "info", code: "hook_message", message })),
  ];
}

export type RecordedDispatch = { outcome: HookOutcome; events: AgentEvent[] };

/**
 * Runs a session event's hooks (not a tool's) and returns, with the outcome, the events that put
 * them on the timeline (`hook-runs`, which the transcript keeps) and tell the user what they said.
 */
export async function dispatchRecorded(
  hooks: HookDispatcher,
  event: HookEventName,
  input: Record<string, unknown>,
  options: { signal: AbortSignal; matchValue?: string; now: () => number },
): Promise<RecordedDispatch> {
  const startedAt = options.now();
  const outcome = await hooks.dispatch(event, input, {
    signal: options.signal,
    ...(options.matchValue === undefined ? {} : { matchValue: options.matchValue }),
  });
  const events: AgentEvent[] = [];
  if (outcome.ran.length > 0) events.push({ type: "hook-runs", event, runs: hookRunsOf(event, startedAt, options.now(), outcome) });
  events.push(...hookOutcomeNotices(event, outcome));
  return { outcome, events };
}

/** `SessionStart`: its plain stdout and `additionalContext` become context for the model. */
export function dispatchSessionStart(
  hooks: HookDispatcher,
  source: SessionStartSource,
  options: { signal: AbortSignal; now: () => number; model?: string },
): Promise<RecordedDispatch> {
  return dispatchRecorded(hooks, "SessionStart", { source, ...(options.model ? { model: options.model } : {}) }, { ...options, matchValue: source });
}

/** Claude Code's `SessionEnd` reasons. */
export type SessionEndReason = "clear" | "logout" | "prompt_input_exit" | "other";

/** `SessionEnd`: nothing it says changes anything; it runs, and its runs are recorded. */
export function dispatchSessionEnd(
  hooks: HookDispatcher,
  reason: SessionEndReason,
  options: { signal: AbortSignal; now: () => number },
): Promise<RecordedDispatch> {
  return dispatchRecorded(hooks, "SessionEnd", { reason }, { ...options, matchValue: reason });
}

/** Claude Code's notification types; other code may send its own (`review_ready`, …). */
export type HookNotification = { message: string; notificationType: "permission_prompt" | "idle_prompt" | (string & {}); title?: string };

/**
 * `Notification`: tells the user's hooks that Cairn wants their attention (a permission prompt is
 * waiting, the session is idle waiting for input, …). Matched on the notification type.
 */
export function dispatchNotification(
  hooks: HookDispatcher,
  notification: HookNotification,
  options: { signal: AbortSignal; now: () => number },
): Promise<RecordedDispatch> {
  return dispatchRecorded(
    hooks,
    "Notification",
    { message: notification.message, notification_type: notification.notificationType, ...(notification.title ? { title: notification.title } : {}) },
    { ...options, matchValue: notification.notificationType },
  );
}
