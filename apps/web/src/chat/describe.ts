import type { DecisionReason } from "@cairn/core/schema";
import type { ToolDecisionView } from "./chat-types.ts";

const sourceNames: Record<string, string> = {
  cliArg: "command-line flag",
  session: "this session",
  localSettings: ".claude/settings.local.json",
  projectSettings: ".claude/settings.json",
  userSettings: "user settings",
  policySettings: "managed policy",
  command: "command",
};

/** Why a permission decision was made, in words, e.g. `rule Bash(npm test:*) from .claude/settings.json`. */
export function describeReason(reason: DecisionReason): string {
  switch (reason.type) {
    case "rule":
      return `rule ${reason.rule} (${reason.behavior}) from ${sourceNames[reason.source] ?? reason.source}`;
    case "hook":
      return `hook ${reason.hookName}${reason.reason ? `: ${reason.reason}` : ""}`;
    case "mode":
      return `${reason.mode} mode${reason.reason ? `: ${reason.reason}` : ""}`;
    case "classifier":
      return `classifier ${reason.classifier}: ${reason.reason}`;
    case "sandbox":
      return `sandbox: ${reason.reason}`;
    case "workspace":
      return `workspace: ${reason.reason}`;
    case "tool":
      return `tool check: ${reason.reason}`;
    case "user":
      if (reason.scope === "reject") return reason.feedback ? `you denied it: “${reason.feedback}”` : "you denied it";
      return reason.scope === "once"
        ? "you allowed it once"
        : reason.scope === "session"
          ? "you allowed it for this session"
          : "you allowed it always (rule saved)";
    case "headless":
      return `headless run: ${reason.reason}`;
    case "default":
      return reason.reason;
  }
}

export function describeDecision(decision: ToolDecisionView): string {
  const verb = decision.behavior === "allow" ? "Allowed" : "Denied";
  const waited = decision.waitedMs > 0 ? ` after ${formatDuration(decision.waitedMs)}` : "";
  return `${verb}${waited}: ${describeReason(decision.reason)}`;
}

export function formatDuration(ms: number): string {
  if (ms < 1000) return `${Math.round(ms)} ms`;
  if (ms < 60_000) return `${(ms / 1000).toFixed(ms < 10_000 ? 1 : 0)} s`;
  const minutes = Math.floor(ms / 60_000);
  return `${minutes} min ${Math.round((ms % 60_000) / 1000)} s`;
}

export function formatTokens(tokens: number): string {
  if (tokens < 1000) return String(tokens);
  if (tokens < 1_000_000) return `${(tokens / 1000).toFixed(tokens < 10_000 ? 1 : 0)}k`;
  return `${(tokens / 1_000_000).toFixed(2)}M`;
}

const asRecord = (value: unknown): Record<string, unknown> => (value && typeof value === "object" ? (value as Record<string, unknown>) : {});

/** The one line a tool card shows in its header: the path, pattern or command it works on. */
export function toolSummary(name: string, input: unknown): string {
  const fields = asRecord(input);
  const pick = (...keys: string[]) => {
    for (const key of keys) if (typeof fields[key] === "string") return fields[key];
    return "";
  };
  switch (name) {
    case "Read":
    case "Write":
    case "Edit":
    case "MultiEdit":
      return pick("file_path");
    case "Glob":
      return [pick("pattern"), pick("path")].filter(Boolean).join(" in ");
    case "Grep":
      return [pick("pattern"), pick("path", "glob")].filter(Boolean).join(" in ");
    case "Bash":
      return pick("description", "command");
    case "TodoWrite":
      return Array.isArray(fields.todos) ? `${fields.todos.length} todos` : "";
    case "Agent":
    case "Task":
      return pick("description");
    default:
      return pick("file_path", "path", "pattern", "command", "url", "query", "description");
  }
}
