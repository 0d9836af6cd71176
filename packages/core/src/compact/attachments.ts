import type { TodoItem } from "../schema/events.ts";
import type { ConversationMessage } from "../schema/messages.ts";
import { toolResults, toolResultText, toolUses } from "./conversation.ts";

export type ReadFileForCompaction = (path: string, signal: AbortSignal) => Promise<string | null>;

export type RecentFilesPolicy = {
  maxFiles: number;
  maxCharsPerFile: number;
  maxTotalChars: number;
  /** The tool whose results name files (`Read {file_path}`). */
  readToolName: string;
};

export type RecentFile = { path: string; content: string; truncated: boolean; source: "workspace" | "transcript" };

type ReadCall = { path: string; resultText: string };

/** Successful Read calls, newest first, one per path. */
function recentReads(messages: readonly ConversationMessage[], readToolName: string): ReadCall[] {
  const results = new Map<string, string>();
  for (const message of messages) {
    for (const block of toolResults(message)) if (!block.is_error) results.set(block.tool_use_id, toolResultText(block));
  }
  const reads: ReadCall[] = [];
  const seen = new Set<string>();
  for (let index = messages.length - 1; index >= 0; index--) {
    const uses = toolUses(messages[index]!);
    for (let at = uses.length - 1; at >= 0; at--) {
      const use = uses[at]!;
      if (use.name !== readToolName) continue;
      const path = (use.input as { file_path?: unknown } | null)?.file_path;
      const resultText = results.get(use.id);
      if (typeof path !== "string" || resultText === undefined || resultText.length === 0 || seen.has(path)) continue;
      seen.add(path);
      reads.push({ path, resultText });
    }
  }
  return reads;
}

function numbered(text: string): string {
  if (text === "") return "";
  return text
    .replace(/\r\n/g, "\n")
    .split("\n")
    .map((line, index) => `${index + 1}\t${line}`)
    .join("\n");
}

/**
 * The files read most recently, with their current contents when `readFile` can fetch them (else
 * what the last Read returned), bounded per file and in total. Files whose Read is among the
 * kept messages are left out: the model still sees them. `visiblePaths` are the files whose content
 * the model sees after the compaction: read in the kept messages, or re-attached whole. Edit and
 * Write must see a fresh Read of any other file first.
 */
export async function collectRecentFiles(options: {
  messages: readonly ConversationMessage[];
  kept: readonly ConversationMessage[];
  policy: RecentFilesPolicy;
  readFile?: ReadFileForCompaction;
  signal: AbortSignal;
}): Promise<{ files: RecentFile[]; visiblePaths: string[] }> {
  const { policy } = options;
  const visible = new Set(recentReads(options.kept, policy.readToolName).map((read) => read.path));
  const files: RecentFile[] = [];
  let budget = policy.maxTotalChars;
  for (const read of recentReads(options.messages, policy.readToolName)) {
    if (files.length >= policy.maxFiles || budget <= 0) break;
    if (visible.has(read.path)) continue;
    let content = read.resultText;
    let source: RecentFile["source"] = "transcript";
    if (options.readFile) {
      try {
        const current = await options.readFile(read.path, options.signal);
        if (current === null) continue;
        content = numbered(current);
        source = "workspace";
      } catch {
        if (options.signal.aborted) throw options.signal.reason;
        // Unreadable now: what the model last saw is still better than nothing.
      }
    }
    const limit = Math.min(policy.maxCharsPerFile, budget);
    const truncated = content.length > limit;
    if (truncated) content = content.slice(0, limit);
    budget -= content.length;
    files.push({ path: read.path, content, truncated, source });
  }
  const visiblePaths = new Set(visible);
  for (const file of files) if (!file.truncated) visiblePaths.add(file.path);
  return { files, visiblePaths: [...visiblePaths] };
}

/** The text of the meta message re-attaching the todo list and recent files; null when there is neither. */
export function attachmentText(todos: readonly TodoItem[], files: readonly RecentFile[]): string | null {
  if (todos.length === 0 && files.length === 0) return null;
  const sections: string[] = ["This conversation was just compacted. Re-attached for reference:"];
  if (todos.length > 0) {
    sections.push(`The todo list:\n${todos.map((todo, index) => `${index + 1}. [${todo.status}] ${todo.content}`).join("\n")}`);
  }
  if (files.length > 0) {
    const rendered = files.map((file) => {
      const note = file.truncated ? "\n[... the rest of the file was cut; Read it again if you need it]" : "";
      const state = file.source === "workspace" ? "current" : "as-last-read";
      return `<file path="${file.path}" contents="${state}">\n${file.content}${note}\n</file>`;
    });
    sections.push(`Files read recently:\n\n${rendered.join("\n\n")}`);
  }
  return `<system-reminder>\n${sections.join("\n\n")}\n</system-reminder>`;
}
