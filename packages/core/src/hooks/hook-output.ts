import { z } from "zod";
import type { HookEventName, HookRunResult } from "./port.ts";

/** `PermissionRequest`'s answer to the permission prompt (Claude Code's `hookSpecificOutput.decision`). */
const permissionRequestDecisionSchema = () =>
  z.discriminatedUnion("behavior", [
    z.looseObject({ behavior: z.literal("allow"), updatedInput: z.record(z.string(), z.unknown()).optional() }),
    z.looseObject({ behavior: z.literal("deny"), message: z.string().optional(), interrupt: z.boolean().optional() }),
  ]);

/** The JSON a hook may print on stdout with exit code 0 (Claude Code's contract); built when a hook first answers. */
export const hookJsonOutputSchema = z.lazy(() =>
  z
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
          decision: permissionRequestDecisionSchema().optional(),
        })
        .loose()
        .optional(),
    })
    .loose(),
);
export type HookJsonOutput = z.infer<typeof hookJsonOutputSchema>;

export type PermissionRequestVerdict =
  | { behavior: "allow"; updatedInput?: Record<string, unknown> }
  | { behavior: "deny"; message?: string; interrupt?: boolean };

/** What one hook said, before folding with the others. */
export type HookVerdict = {
  hookName: string;
  blocked?: string;
  permissionDecision?: { behavior: "allow" | "deny" | "ask"; reason?: string };
  permissionRequest?: PermissionRequestVerdict;
  updatedInput?: Record<string, unknown>;
  additionalContext?: string;
  systemMessage?: string;
  stop?: { stopReason?: string };
  suppressOutput?: boolean;
  /** Plain (non-JSON) stdout: shown on the timeline unless the hook asked to suppress it. */
  output?: string;
  /** Something the user should know that is not an error (output that was not JSON). */
  notice?: string;
  error?: string;
};

// Events whose plain stdout (exit 0, not JSON) becomes context for the model, as in Claude Code.
const stdoutIsContext = new Set<HookEventName>(["UserPromptSubmit", "SessionStart"]);
const permissionEvents = new Set<HookEventName>(["PreToolUse", "PermissionRequest"]);
// Exit code 2 blocks these; for the others it only shows stderr to the user (Claude Code's table).
const exitTwoBlocks = new Set<HookEventName>([
  "PreToolUse",
  "PermissionRequest",
  "PostToolUse",
  "PostToolUseFailure",
  "UserPromptSubmit",
  "Stop",
  "SubagentStop",
]);

const MAX_KEPT_OUTPUT_CHARS = 2_000;

function parseJsonObject(text: string): { json: unknown } | { invalid: boolean } {
  const trimmed = text.trim();
  if (!trimmed.startsWith("{")) return { invalid: false };
  try {
    return { json: JSON.parse(trimmed) };
  } catch {
    return { invalid: true };
  }
}

function clipOutput(text: string): string {
  return text.length > MAX_KEPT_OUTPUT_CHARS ? `${text.slice(0, MAX_KEPT_OUTPUT_CHARS)}…` : text;
}

/**
 * Exit 0: ok (stdout may be JSON); exit 2: block with stderr as the reason where the event can be
 * blocked, stderr shown to the user where it cannot; anything else: a non-blocking error.
 */
export function interpretHookResult(event: HookEventName, hookName: string, result: HookRunResult, timeoutMs: number): HookVerdict {
  if (result.spawnError) return { hookName, error: `could not start: ${result.spawnError}` };
  if (result.timedOut) return { hookName, error: `timed out after ${timeoutMs / 1000} s and was stopped` };
  if (result.aborted) return { hookName, error: "cancelled" };
  if (result.exitCode === 2) {
    const stderr = result.stderr.trim();
    if (exitTwoBlocks.has(event)) return { hookName, blocked: stderr || "blocked by hook (exit code 2)" };
    return stderr ? { hookName, systemMessage: stderr } : { hookName };
  }
  if (result.exitCode !== 0) {
    const detail = result.stderr.trim();
    return { hookName, error: `exited with code ${result.exitCode ?? "null"}${detail ? `: ${detail}` : ""}` };
  }
  const text = result.stdout.trim();
  const parsedJson = parseJsonObject(result.stdout);
  if (!("json" in parsedJson)) {
    if (!text) return { hookName };
    if (stdoutIsContext.has(event)) return { hookName, additionalContext: text, output: clipOutput(text) };
    const notice = parsedJson.invalid
      ? "printed invalid JSON; it was treated as plain output"
      : "printed output that is not JSON; it was treated as plain output";
    return { hookName, output: clipOutput(text), notice };
  }
  const parsed = hookJsonOutputSchema.safeParse(parsedJson.json);
  if (!parsed.success)
    return { hookName, error: `invalid hook output: ${parsed.error.issues.map((issue) => `${issue.path.join(".")}: ${issue.message}`).join("; ")}` };
  const output = parsed.data;
  const verdict: HookVerdict = { hookName };
  const specific = output.hookSpecificOutput;
  if (output.continue === false) verdict.stop = output.stopReason === undefined ? {} : { stopReason: output.stopReason };
  if (output.systemMessage) verdict.systemMessage = output.systemMessage;
  if (output.suppressOutput) verdict.suppressOutput = true;
  else verdict.output = clipOutput(text);
  if (specific?.additionalContext) verdict.additionalContext = specific.additionalContext;
  if (specific?.updatedInput) verdict.updatedInput = specific.updatedInput;
  if (permissionEvents.has(event) && specific?.permissionDecision) {
    const reason = specific.permissionDecisionReason ?? output.reason;
    verdict.permissionDecision = { behavior: specific.permissionDecision, ...(reason ? { reason } : {}) };
  }
  if (event === "PermissionRequest" && specific?.decision) {
    const decision = specific.decision;
    verdict.permissionRequest =
      decision.behavior === "allow"
        ? { behavior: "allow", ...(decision.updatedInput ? { updatedInput: decision.updatedInput } : {}) }
        : { behavior: "deny", ...(decision.message ? { message: decision.message } : {}), ...(decision.interrupt ? { interrupt: true } : {}) };
  }
  if (output.decision === "block") verdict.blocked = output.reason ?? "blocked by hook";
  else if (output.decision === "approve" && event === "PreToolUse" && !verdict.permissionDecision) {
    verdict.permissionDecision = { behavior: "allow", ...(output.reason ? { reason: output.reason } : {}) };
  }
  return verdict;
}
