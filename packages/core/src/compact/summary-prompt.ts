import type { CompactTrigger } from "./types.ts";

export const SUMMARY_SYSTEM_PROMPT = "You are a careful assistant that writes summaries of coding conversations so the work can continue from them.";

/**
 * The request sent after the conversation to be summarised. Modelled on Claude Code's
 * structured summary: the next instance of the agent sees only this, so it asks for what is
 * needed to carry on — the request, the concepts, the files and code, errors and fixes, what
 * is pending, what was under way and the next step.
 */
export function summaryPrompt(instructions: readonly string[]): string {
  const base = `Your task is to write a detailed summary of the conversation so far. It will replace the conversation: whoever continues the work will see only your summary and the most recent messages, so include every detail needed to carry on without losing context — the user's explicit requests, the technical decisions made, and the code that matters.

First think in <analysis> tags: go through the conversation in order and note, for each part, what the user asked for and meant, how you approached it, the decisions taken, the file names, code snippets, function signatures and edits, the errors met and how they were fixed, and any feedback the user gave, especially where they asked for something to be done differently. Check that nothing technical is missing.

Then write the summary in <summary> tags, with these sections:

1. Primary request and intent: everything the user asked for, in detail.
2. Key technical concepts: technologies, frameworks, patterns and conventions that came up.
3. Files and code: every file read, changed or created, with why it matters; include the important snippets in full and say what changed.
4. Errors and fixes: each error met, how it was fixed, and what the user said about it.
5. Problem solving: problems solved and investigations still open.
6. All user messages: every message the user wrote that is not a tool result, briefly; they show how the user's intent evolved.
7. Pending tasks: what the user asked for that is not done yet.
8. Current work: precisely what was being worked on just before this summary, with file names and code.
9. Next step: the next step, only if it follows directly from the user's latest request and the current work; quote the latest request word for word so the task does not drift. If the last task was finished, say so and propose no new one unless the user asked for it.

Write only the analysis and the summary; do not call any tool.`;
  if (instructions.length === 0) return base;
  return `${base}\n\nAdditional instructions for this summary:\n${instructions.join("\n")}`;
}

/** The summary without the analysis: the text between <summary> tags, else the answer without its <analysis> block. */
export function extractSummary(answer: string): string {
  const tagged = /<summary>([\s\S]*?)(?:<\/summary>|$)/i.exec(answer);
  if (tagged) return tagged[1]!.trim();
  return answer.replace(/<analysis>[\s\S]*?(?:<\/analysis>|$)/i, "").trim();
}

/** The user message that carries the summary into the compacted conversation. */
export function summaryMessageText(options: { summary: string; trigger: CompactTrigger; keptMessages: number; droppedMessages: number }): string {
  const parts = [
    "This session continues an earlier conversation that was compacted to save context. The summary below covers the earlier part of the conversation.",
    options.summary,
  ];
  if (options.droppedMessages > 0) {
    parts.push(`(The ${options.droppedMessages} oldest messages did not fit in the summary request and are not covered by it.)`);
  }
  if (options.keptMessages > 0) parts.push("The most recent messages follow verbatim.");
  if (options.trigger !== "manual") {
    parts.push("Continue from where the conversation left off without asking the user further questions: carry on with the last task you were working on.");
  }
  return parts.join("\n\n");
}
