import type { ClassifierRequestRecord, DecisionReason, PermissionAnswer } from "../schema/permissions.ts";
import type { AssistantMessage } from "../schema/messages.ts";
import type { Tool, ToolUseContext } from "../tools/tool.ts";

/** Auto mode's classifier request behind a decision, when one was made (see `ToolCallRecord.classifierRequest`). */
type ClassifierRequestPart = { classifierRequest?: ClassifierRequestRecord };

/**
 * The result of a permission check. `ask` carries what a person needs to decide; the pipeline then
 * asks through the `PermissionPrompter` port and waits. `passthrough` (tool-level only) means
 * "no opinion": the engine's rules and mode decide.
 */

export type PermissionCheckResult =
  | ({ behavior: "allow"; reason: DecisionReason; updatedInput?: Record<string, unknown> } & ClassifierRequestPart)
  | ({ behavior: "deny"; reason: DecisionReason; message: string } & ClassifierRequestPart)
  | ({ behavior: "ask"; reason: DecisionReason; message?: string; suggestions?: string[] } & ClassifierRequestPart)
  | { behavior: "passthrough" };

export type PermissionCheckArgs = {
  tool: Tool;
  input: unknown;
  toolUseId: string;
  context: ToolUseContext;
  assistantMessage: AssistantMessage;
  /** A PreToolUse hook's decision, already made; the gate folds it in (deny rules still win). */
  hookDecision?: { behavior: "allow" | "deny" | "ask"; hookName: string; reason?: string };
};

/** `canUseTool`: the engine's decision point. Implemented by the permission engine; tests pass fakes. */
export interface PermissionGate {
  check(args: PermissionCheckArgs): Promise<Exclude<PermissionCheckResult, { behavior: "passthrough" }>>;
  /** Called after a person answered an `ask`: persist session or permanent rules. */
  recordAnswer?(args: PermissionCheckArgs, answer: PermissionAnswer, suggestions: readonly string[]): Promise<void>;
  /**
   * Called on each denial with its reason; counts it, and returns a rule suggestion when the count
   * for this tool and pattern reaches a threshold and the rule would really allow the call.
   */
  recordDenial?(args: PermissionCheckArgs, reason: DecisionReason): Promise<{ rule: string; denials: number } | undefined>;
}

export type PermissionRequest = {
  requestId: string;
  toolUseId: string;
  toolName: string;
  input: unknown;
  message?: string;
  reason: DecisionReason;
  suggestions: string[];
};

/** How an `ask` reaches a person: the web UI, an interactive CLI, or print mode (which denies). */
export interface PermissionPrompter {
  ask(request: PermissionRequest, signal: AbortSignal): Promise<PermissionAnswer>;
  /** Nobody can answer (print mode): its denials carry the reason `headless` and never suggest a rule. */
  readonly headless?: boolean;
}

export const allowAllGate: PermissionGate = {
  async check() {
    return { behavior: "allow", reason: { type: "mode", mode: "bypassPermissions", reason: "no permission engine configured" } };
  },
};

export const headlessPrompter: PermissionPrompter = {
  headless: true,
  async ask(request) {
    // The question goes back to the model as the reason, so it knows what was refused (e.g. the files a command writes).
    const why = request.message ? ` It would have asked: ${request.message}` : "";
    return { behavior: "deny", feedback: `Permission to use ${request.toolName} was not granted (running non-interactively).${why}` };
  },
};
