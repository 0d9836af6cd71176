import { textOf, type MessagesRequest, type RequestMessage } from "./messages-request.ts";
import type { Turn } from "./scenario.ts";

export const DEMO_PREFIX = "[Demo model] ";

type ToolCall = { name: "Glob" | "Read" | "Grep" | "Bash"; input: Record<string, unknown>; intro: string };

const SUMMARY_LINES = 10;
const SUMMARY_CHARS = 800;
const NOT_A_PATH = new Set(["a", "all", "file", "files", "me", "the", "it", "this", "that"]);

export const DEMO_HELP =
  `${DEMO_PREFIX}I am Cairn's offline demo model: no real AI is answering, only a few scripted rules.\n` +
  "I understand four kinds of request:\n" +
  '- "list files" (or "ls"): I list the workspace with Glob\n' +
  '- "read <path>" (or "open"/"show"): I read that file with Read\n' +
  '- "search <word>" (or "grep"/"find"): I search the workspace with Grep\n' +
  '- "run <command>" or a command in `backticks`: I run it with Bash\n' +
  "To use a real model, set ANTHROPIC_API_KEY (and optionally ANTHROPIC_BASE_URL) and restart Cairn.";

/** What the demo model answers to `request`: a tool call, a summary of a tool result, or help text. */
export function demoTurn(request: MessagesRequest): Turn {
  const last = request.messages.at(-1);
  if (!last || last.role !== "user") return textTurn(DEMO_HELP);
  const toolResults = Array.isArray(last.content) ? last.content.filter((block) => block.type === "tool_result") : [];
  if (toolResults.length > 0) {
    const previous = request.messages.at(-2);
    return textTurn(toolResults.map((block) => summarizeToolResult(block, previous)).join("\n\n"));
  }
  const call = detectToolCall(stripSystemReminders(textOf(last.content)), workingDirectory(request));
  if (!call) return textTurn(DEMO_HELP);
  const available = (request.tools ?? []).some((tool) => tool.name === call.name);
  if (!available) {
    return textTurn(
      `${DEMO_PREFIX}I would use the ${call.name} tool for that, but this session does not offer it, ` +
        "so there is nothing I can do. A real model (set ANTHROPIC_API_KEY) could help further.",
    );
  }
  return {
    content: [
      { type: "text", text: `${DEMO_PREFIX}${call.intro}` },
      { type: "tool_use", name: call.name, input: call.input },
    ],
  };
}

export function detectToolCall(text: string, workdir: string): ToolCall | undefined {
  const quoted = /`([^`\n]+)`/.exec(text)?.[1]?.trim();
  if (quoted) return bash(quoted);
  const run = /\brun\s+(.+)/i.exec(text)?.[1]?.trim();
  if (run) return bash(run);
  const path = cleanWord(/\b(?:read|open|show)\s+(?:the\s+)?(?:file\s+)?(\S+)/i.exec(text)?.[1]);
  if (path) {
    const filePath = path.startsWith("/") ? path : `${workdir.replace(/\/+$/, "")}/${path.replace(/^\.\//, "")}`;
    return { name: "Read", input: { file_path: filePath }, intro: `Reading ${path} with Read.` };
  }
  const word = cleanWord(/\b(?:search|grep|find)\s+(?:for\s+)?(\S+)/i.exec(text)?.[1]);
  if (word) {
    return {
      name: "Grep",
      input: { pattern: word, output_mode: "content", "-n": true },
      intro: `Searching the workspace for "${word}" with Grep.`,
    };
  }
  if (/\b(?:list|files|ls)\b/i.test(text)) {
    return { name: "Glob", input: { pattern: "**/*" }, intro: "Listing the files in the workspace with Glob." };
  }
  return undefined;
}

function bash(command: string): ToolCall {
  return { name: "Bash", input: { command, description: `Run ${command}`.slice(0, 80) }, intro: `Running \`${command}\` with Bash.` };
}

function cleanWord(word: string | undefined): string | undefined {
  const cleaned = word?.replace(/^["'`(]+/, "").replace(/["'`),.;:!?]+$/, "");
  if (!cleaned || NOT_A_PATH.has(cleaned.toLowerCase())) return undefined;
  return cleaned;
}

function stripSystemReminders(text: string): string {
  return text.replace(/<system-reminder>[\s\S]*?<\/system-reminder>/g, "").trim();
}

export function workingDirectory(request: MessagesRequest): string {
  const system = request.system === undefined ? "" : textOf(request.system);
  return /Working directory: (.+)/.exec(system)?.[1]?.trim() || ".";
}

function summarizeToolResult(block: { type: string; [key: string]: unknown }, previous: RequestMessage | undefined): string {
  const call = findToolUse(previous, block["tool_use_id"]);
  const ran = call ? `${call.name} (${describeInput(call.input)})` : "the tool";
  const output = resultText(block["content"]).trim();
  if (block["is_error"] === true) return `${DEMO_PREFIX}I ran ${ran}, but it failed: ${excerpt(output) || "no details"}`;
  if (output.length === 0) return `${DEMO_PREFIX}I ran ${ran}; it returned nothing.`;
  return `${DEMO_PREFIX}I ran ${ran}; here is what it returned:\n${excerpt(output)}`;
}

function findToolUse(message: RequestMessage | undefined, toolUseId: unknown): { name: string; input: unknown } | undefined {
  if (!message || typeof message.content === "string") return undefined;
  for (const block of message.content) {
    if (block.type === "tool_use" && block["id"] === toolUseId && typeof block["name"] === "string") {
      return { name: block["name"], input: block["input"] };
    }
  }
  return undefined;
}

function describeInput(input: unknown): string {
  if (typeof input !== "object" || input === null) return "";
  const fields = input as Record<string, unknown>;
  for (const key of ["command", "file_path", "pattern", "path"]) {
    const value = fields[key];
    if (typeof value === "string") return value;
  }
  return JSON.stringify(input).slice(0, 80);
}

function resultText(content: unknown): string {
  if (typeof content === "string") return content;
  if (!Array.isArray(content)) return "";
  return content
    .map((block: unknown) => (typeof block === "object" && block !== null && "text" in block && typeof block.text === "string" ? block.text : ""))
    .join("\n");
}

function excerpt(output: string): string {
  const lines = output.split("\n");
  let shown = lines.slice(0, SUMMARY_LINES).join("\n");
  if (shown.length > SUMMARY_CHARS) shown = `${shown.slice(0, SUMMARY_CHARS)}…`;
  const hidden = lines.length - SUMMARY_LINES;
  return hidden > 0 ? `${shown}\n… (${hidden} more lines)` : shown;
}

function textTurn(text: string): Turn {
  return { content: [{ type: "text", text }], stop_reason: "end_turn" };
}
