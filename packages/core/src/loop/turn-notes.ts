import { backgroundAgentsOf, taskNotificationText } from "../agents/background-agents.ts";
import type { ConversationMessage } from "../schema/messages.ts";
import type { ToolUseContext } from "../tools/tool.ts";
import { isPlanModeReminder, PLAN_MODE_REMINDER } from "./plan-mode.ts";

/**
 * Meta messages added to the conversation before a request: the results of background agents that
 * finished since the last one (Claude Code's task notifications), then the plan-mode reminder while
 * planning (not twice in a row, e.g. when a request is retried).
 */
export function turnNotes(context: Pick<ToolUseContext, "services" | "getAppState">, last: ConversationMessage | undefined): string[] {
  const notes = (backgroundAgentsOf(context)?.takeNotifications() ?? []).map(taskNotificationText);
  if (context.getAppState().permissionMode === "plan" && (notes.length > 0 || !isPlanModeReminder(last))) notes.push(PLAN_MODE_REMINDER);
  return notes;
}
