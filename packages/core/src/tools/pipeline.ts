import type { z } from "zod";
import type { PermissionCheckArgs } from "../permissions/port.ts";
import type { ToolResultContent, ToolUseBlock } from "../schema/content.ts";
import type { AgentEvent } from "../schema/events.ts";
import type { HookEventName, HookOutcome } from "../hooks/port.ts";
import type { AssistantMessage, HookRunRecord } from "../schema/messages.ts";
import type { ClassifierRequestRecord, DecisionReason, PermissionDecisionRecord } from "../schema/permissions.ts";
import { nestedMemoryForCall } from "../memory/session-memory.ts";
import { classifyToolError, errorMessage } from "./classify-error.ts";
import { hookOutcomeNotices } from "../hooks/session-events.ts";
import { callTool } from "./call-tool.ts";
import { hookRunsOf } from "./hook-runs.ts";
import { decidePermission } from "./permission-decision.ts";
import { INTERRUPTED_MESSAGE, type PipelineServices, type ToolRunOutcome } from "./pipeline-types.ts";
import { applyResultBudget, DEFAULT_MAX_RESULT_CHARS } from "./result-budget.ts";
import { buildOutcome, type OutcomeExtra } from "./tool-outcome.ts";
import { findToolByName, type ToolResult, type ToolUseContext } from "./tool.ts";

type Early = { content: string; errorClass?: string; decision?: PermissionDecisionRecord; denied?: boolean };

/**
 * The life of one tool call: find → abort check → validate → enabled → validateInput → PreToolUse
 * hooks → permission (asking a person if needed) → call → PostToolUse hooks → tool_result.
 * Never throws for anything a tool or its input does: that becomes an `is_error` result the model can act on.
 */
export async function* runToolUse(
  block: ToolUseBlock,
  assistantMessage: AssistantMessage,
  context: ToolUseContext,
  services: PipelineServices,
  batch: number,
): AsyncGenerator<AgentEvent, ToolRunOutcome> {
  const startedAt = services.now();
  let permissionWaitMs = 0;
  let classifierRequest: ClassifierRequestRecord | undefined;
  const hookRuns: HookRunRecord[] = [];
  /** Runs one hook event for this call and keeps its timing for the transcript. */
  const dispatchHooks = async (event: HookEventName, input: Record<string, unknown>, matchValue: string): Promise<HookOutcome> => {
    const dispatchedAt = services.now();
    const outcome = await services.hooks.dispatch(event, input, { signal: context.signal, matchValue });
    hookRuns.push(...hookRunsOf(event, dispatchedAt, services.now(), outcome));
    return outcome;
  };
  yield { type: "tool-start", toolUseId: block.id, name: block.name, input: block.input, startedAt, batch };

  const finish = (content: ToolResultContent, isError: boolean, extra: OutcomeExtra): ToolRunOutcome =>
    buildOutcome(
      { block, assistantMessage, context, services, batch, startedAt, permissionWaitMs, hooks: hookRuns, classifierRequest },
      content,
      isError,
      extra,
    );
  const fail = (early: Early): ToolRunOutcome =>
    finish(early.content, true, {
      ...(early.errorClass ? { errorClass: early.errorClass } : {}),
      ...(early.decision ? { decision: early.decision } : {}),
      denied: early.denied ?? false,
    });

  const tool = findToolByName(context.tools, block.name);
  if (!tool) return fail({ content: `Error: No such tool available: ${block.name}`, errorClass: "UnknownTool" });
  if (context.signal.aborted) return fail({ content: INTERRUPTED_MESSAGE, errorClass: "Aborted" });

  let parsed = tool.inputSchema.safeParse(block.input);
  if (!parsed.success) {
    return fail({ content: formatInputError(tool.name, parsed.error), errorClass: "InputValidationError" });
  }
  if (tool.isEnabled && !tool.isEnabled()) return fail({ content: `Error: The ${tool.name} tool is disabled.`, errorClass: "ToolDisabled" });
  let input: unknown = parsed.data;

  const validation = tool.validateInput ? await safely(() => tool.validateInput!(input, context)) : { ok: true as const };
  if ("thrown" in validation) return fail({ content: `Error: ${errorMessage(validation.thrown)}`, errorClass: classifyToolError(validation.thrown) });
  if (!validation.ok) return fail({ content: validation.message, errorClass: validation.code ?? "ValidationError" });

  const pre = await dispatchHooks("PreToolUse", { tool_name: tool.name, tool_input: input, tool_use_id: block.id }, tool.name);
  yield* hookOutcomeNotices("PreToolUse", pre);
  if (pre.preventContinuation) {
    // `continue: false` wins over any decision: the call does not run and the loop stops.
    const why = pre.preventContinuation.stopReason ? `: ${pre.preventContinuation.stopReason}` : "";
    return finish(`Execution stopped by a PreToolUse hook${why}`, true, { errorClass: "HookStopped", stop: pre.preventContinuation });
  }
  if (pre.blocked) {
    const reason: DecisionReason = { type: "hook", hookName: pre.blocked.hookName, reason: pre.blocked.reason };
    const decision = { behavior: "deny" as const, reason, waitedMs: 0, asked: false };
    yield { type: "permission-decision", toolUseId: block.id, toolName: tool.name, behavior: "deny", reason, waitedMs: 0 };
    return fail({ content: `PreToolUse hook blocked this call: ${pre.blocked.reason}`, errorClass: "HookBlocked", decision, denied: true });
  }
  if (pre.updatedInput) {
    parsed = tool.inputSchema.safeParse(pre.updatedInput);
    if (!parsed.success) return fail({ content: formatInputError(tool.name, parsed.error), errorClass: "InputValidationError" });
    input = parsed.data;
  }

  const checkArgs: PermissionCheckArgs = {
    tool,
    input,
    toolUseId: block.id,
    context,
    assistantMessage,
    ...(pre.permissionDecision ? { hookDecision: pre.permissionDecision } : {}),
  };
  const permission = yield* decidePermission(checkArgs, services, dispatchHooks, (request) => (classifierRequest = request));
  permissionWaitMs = permission.waitedMs;
  yield {
    type: "permission-decision",
    toolUseId: block.id,
    toolName: tool.name,
    behavior: permission.behavior,
    reason: permission.reason,
    waitedMs: permission.waitedMs,
  };
  const decision: PermissionDecisionRecord = {
    behavior: permission.behavior,
    reason: permission.reason,
    waitedMs: permission.waitedMs,
    asked: permission.asked,
  };
  if (permission.behavior === "deny") {
    const suggestion = await services.gate.recordDenial?.(checkArgs, permission.reason);
    if (suggestion) yield { type: "permission-suggestion", toolName: tool.name, rule: suggestion.rule, denials: suggestion.denials };
    return finish(permission.message, true, { errorClass: "PermissionDenied", decision, denied: true, ...(permission.stop ? { stop: permission.stop } : {}) });
  }
  if (permission.updatedInput) {
    const reparsed = tool.inputSchema.safeParse(permission.updatedInput);
    if (!reparsed.success) return fail({ content: formatInputError(tool.name, reparsed.error), errorClass: "InputValidationError", decision });
    input = reparsed.data;
  }
  if (context.signal.aborted) return fail({ content: INTERRUPTED_MESSAGE, errorClass: "Aborted", decision });

  let result: ToolResult;
  try {
    result = yield* callTool(tool, input, context, block, assistantMessage);
  } catch (error) {
    const aborted = context.signal.aborted;
    const content = aborted ? INTERRUPTED_MESSAGE : `Error: ${errorMessage(error)}`;
    const post = await dispatchHooks(
      "PostToolUseFailure",
      { tool_name: tool.name, tool_input: input, tool_use_id: block.id, error: errorMessage(error), is_interrupt: aborted },
      tool.name,
    );
    yield* hookOutcomeNotices("PostToolUseFailure", post);
    const extra = [...post.additionalContext, ...(post.blocked ? [post.blocked.reason] : [])];
    return finish(appendText(content, extra), true, {
      errorClass: aborted ? "Aborted" : classifyToolError(error),
      decision,
      ...(post.preventContinuation ? { stop: post.preventContinuation } : {}),
    });
  }

  let content = result.content ?? (tool.renderResult ? tool.renderResult(result.output, block.id) : stringify(result.output));
  // A call that failed (an `is_error` result) fires PostToolUseFailure instead, as in Claude Code.
  const failed = result.isError === true;
  const postEvent = failed ? "PostToolUseFailure" : "PostToolUse";
  const postInput = failed
    ? {
        tool_name: tool.name,
        tool_input: input,
        tool_use_id: block.id,
        error: typeof content === "string" ? content : stringify(result.output),
        is_interrupt: false,
      }
    : { tool_name: tool.name, tool_input: input, tool_use_id: block.id, tool_response: result.output };
  const post = await dispatchHooks(postEvent, postInput, tool.name);
  yield* hookOutcomeNotices(postEvent, post);
  content = appendText(content, [...(post.blocked ? [`${postEvent} hook feedback: ${post.blocked.reason}`] : []), ...post.additionalContext]);
  const budget = applyResultBudget(content, tool.maxResultChars ?? DEFAULT_MAX_RESULT_CHARS);
  // A subdirectory's CLAUDE.md reaches the model with the result of the first call that touches a file below it.
  const nested = result.isError ? [] : await nestedMemoryForCall(context, input);
  return finish(appendText(budget.content, nested), result.isError ?? false, {
    output: result.output,
    decision,
    ...(post.preventContinuation ? { stop: post.preventContinuation } : {}),
    ...(result.contextModifier ? { contextModifier: result.contextModifier } : {}),
  });
}

async function safely<T>(run: () => Promise<T>): Promise<T | { thrown: unknown }> {
  try {
    return await run();
  } catch (thrown) {
    return { thrown };
  }
}

export function formatInputError(toolName: string, error: z.ZodError): string {
  const issues = error.issues.map((issue) => {
    const path = issue.path.length > 0 ? issue.path.join(".") : "(input)";
    return `- ${path}: ${issue.message}`;
  });
  return `InputValidationError: ${toolName} failed due to the following issue${issues.length === 1 ? "" : "s"}:\n${issues.join("\n")}`;
}

function appendText(content: ToolResultContent, extra: string[]): ToolResultContent {
  if (extra.length === 0) return content;
  const text = extra.join("\n");
  if (typeof content === "string") return `${content}\n\n${text}`;
  return [...content, { type: "text", text }];
}

function stringify(output: unknown): string {
  if (typeof output === "string") return output;
  if (output === undefined) return "";
  return JSON.stringify(output);
}
