import type { PermissionMode } from "../schema/permissions.ts";
import type { ConversationMessage } from "../schema/messages.ts";

/** Sent with every request while the session is in plan mode (Claude Code's plan-mode attachment). */
export const PLAN_MODE_REMINDER = `<system-reminder>
Plan mode is active. The user wants a plan before any change is made, so you MUST NOT edit or write files, run commands that change anything (installs, commits, config changes), or otherwise change the system yet; this overrides any other instruction you have received.
- Use read-only tools (Read, Glob, Grep, read-only Bash, Agent for research) to understand the code and the task.
- Ask the user when something important is unclear.
- When the plan is ready, call ExitPlanMode with the plan in markdown. The user approves it (then you implement it) or asks you to keep planning, with comments.
</system-reminder>`;

export function isPlanModeReminder(message: ConversationMessage | undefined): boolean {
  return message?.type === "user" && message.isMeta === true && message.message.content === PLAN_MODE_REMINDER;
}

/**
 * The model of the next request: the plan-mode model while planning (`planModel`, like Claude Code's
 * `opusplan`), the session's model otherwise — so the session's model comes back when planning ends.
 */
export function modelForMode(mode: PermissionMode, sessionModel: string, planModel: string | undefined): string {
  return mode === "plan" && planModel ? planModel : sessionModel;
}
