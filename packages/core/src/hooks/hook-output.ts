import { z } from "zod";
import type { HookEventName, HookRunResult } from "./port.ts";

/** The JSON a hook may print on stdout with exit code 0 (Claude Code's contract). */
export const hookJsonOutputSchema = z
  .object({
    continue: z.boolean().optional(),
    stopReason: z.string().optional(),
    suppressOutput: z.boolean().optional(),
    systemMessage: z.string().optional(),
    decision: z.enum(["block", "approve"]).optional(),
    reason: z.string().optional(),
    hookSpecificOutput: z
      .object({
        hookEventName: z.string().optional(),
        permissionDecision: z.enum(["allow", "deny", "ask"]).optional(),
        permissionDecisionReason: z.string().optional(),
        updatedInput: z.record(z.string(), z.unknown()).optional(),
        additionalContext: z.string().optional(),
      })
      .loose()
      .optional(),
  })
  .loose();
export type HookJsonOutput = z.infer<typeof hookJsonOutputSchema>;

/** What one hook said, before folding with the others. */
export type HookVerdict = {
  hookName: string;
  blocked?: string;
  permissionDecision?: { behavior: "allow" | "deny" | "ask"; reason?: string };
  updatedInput?: Record<string, unknown>;
  additionalContext?: string;
  systemMessage?: string;
  stop?: { stopReason?: string };
  suppressOutput?: boolean;
  error?: string;
};

// Events whose plain stdout (exit 0, not JSON) becomes context for the model, as in Claude Code.
const stdoutIsContext = new Set<HookEventName>(["UserPromptSubmit", "SessionStart"]);
const permissionEvents = new Set<HookEventName>(["PreToolUse", "PermissionRequest"]);

function parseJsonObject(text: string): unknown {
  const trimmed = text.trim();
  if (!trimmed.startsWith("{")) return undefined;
  try {
    return JSON.parse(trimmed);
  } catch {
    return undefined;
  }
}

/** Exit 0: ok (stdout may be JSON); exit 2: block with stderr as the reason; anything else: a non-blocking error. */
export function interpretHookResult(event: HookEventName, hookName: string, result: HookRunResult, timeoutMs: number): HookVerdict {
  if (result.spawnError) return { hookName, error: `could not start: ${result.spawnError}` };
  if (result.timedOut) return { hookName, error: `timed out after ${timeoutMs / 1000} s` };
  if (result.aborted) return { hookName, error: "cancelled" };
  if (result.exitCode === 2) return { hookName, blocked: result.stderr.trim() || "blocked by hook (exit code 2)" };
  if (result.exitCode !== 0) {
    const detail = result.stderr.trim();
    return { hookName, error: `exited with code ${result.exitCode ?? "null"}${detail ? `: ${detail}` : ""}` };
  }
  const json = parseJsonObject(result.stdout);
  if (json === undefined) {
    const text = result.stdout.trim();
    return stdoutIsContext.has(event) && text ? { hookName, additionalContext: text } : { hookName };
  }
  const parsed = hookJsonOutputSchema.safeParse(json);
  if (!parsed.success) return { hookName, error: `invalid hook output: ${parsed.error.issues.map((issue) => `${issue.path.join(".")}: ${issue.message}`).join("; ")}` };
  const output = parsed.data;
  const verdict: HookVerdict = { hookName };
  const specific = output.hookSpecificOutput;
  if (output.continue === false) verdict.stop = output.stopReason === undefined ? {} : { stopReason: output.stopReason };
  if (output.systemMessage) verdict.systemMessage = output.systemMessage;
  if (output.suppressOutput) verdict.suppressOutput = true;
  if (specific?.additionalContext) verdict.additionalContext = specific.additionalContext;
  if (specific?.updatedInput) verdict.updatedInput = specific.updatedInput;
  if (permissionEvents.has(event) && specific?.permissionDecision) {
    const reason = specific.permissionDecisionReason ?? output.reason;
    verdict.permissionDecision = { behavior: specific.permissionDecision, ...(reason ? { reason } : {}) };
  }
  if (output.decision === "block") verdict.blocked = output.reason ?? "blocked by hook";
  else if (output.decision === "approve" && event === "PreToolUse" && !verdict.permissionDecision) {
    verdict.permissionDecision = { behavior: "allow", ...(output.reason ? { reason: output.reason } : {}) };
  }
  return verdict;
}
