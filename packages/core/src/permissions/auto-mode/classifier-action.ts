import type { ConversationMessage } from "../../schema/messages.ts";
import type { ShellAnalysis } from "../shell/types.ts";
import type { ShellWrite } from "../shell/write-targets.ts";
import type { ParsedCommandView } from "./classifier-port.ts";

const REMINDER = /<system-reminder>[\s\S]*?<\/system-reminder>/g;

/**
 * What the user typed so far: the text of user messages that are not tool results, reminders, hook
 * context or compaction summaries.
 */
export function userRequestsOf(messages: readonly ConversationMessage[]): string[] {
  const requests: string[] = [];
  for (const message of messages) {
    if (message.type !== "user" || message.isMeta || message.isCompactSummary || message.toolUseResult !== undefined) continue;
    const content = message.message.content;
    const text =
      typeof content === "string"
        ? content
        : content
            .filter((block) => block.type === "text")
            .map((block) => (block.type === "text" ? block.text : ""))
            .join("\n");
    const request = text.replace(REMINDER, "").trim();
    if (request !== "") requests.push(request);
  }
  return requests;
}

export function parsedCommandView(analysis: ShellAnalysis, writes: readonly ShellWrite[]): ParsedCommandView {
  return {
    commands: analysis.commands.map((command) => ({ argv: command.argv.map((word) => word.raw), nested: command.nested })),
    writes: writes.map((write) => `${write.path ?? write.text} (${write.via}${write.unknown ? `, ${write.unknown}` : ""})`),
    problems: [...analysis.problems],
  };
}
