import type { HookEventName, HookOutcome } from "../hooks/port.ts";
import type { HookRunRecord } from "../schema/messages.ts";

/**
 * The hooks of one dispatch as timeline records. Hooks of an event run in parallel, so each starts
 * when the dispatch started and ends its own duration later (never after the dispatch returned).
 */
export function hookRunsOf(event: HookEventName, startedAt: number, endedAt: number, outcome: HookOutcome): HookRunRecord[] {
  return outcome.ran.map((run) => ({
    event,
    name: run.hookName,
    startedAt,
    endedAt: Math.max(startedAt, Math.min(endedAt, startedAt + run.durationMs)),
    outcome: hookRunOutcome(run, outcome),
    ...(run.output ? { output: run.output } : {}),
  }));
}

function hookRunOutcome(run: HookOutcome["ran"][number], outcome: HookOutcome): string {
  if (outcome.blocked?.hookName === run.hookName) return "blocked";
  if (outcome.errors.some((error) => error.hookName === run.hookName)) return "error";
  if (run.exitCode === 0) return "ok";
  return run.exitCode === null ? "error" : `exit ${run.exitCode}`;
}
