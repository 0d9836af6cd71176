import type { z } from "zod";
import type { HookDispatcher } from "../hooks/port.ts";
import type { PermissionCheckArgs, PermissionGate, PermissionPrompter } from "../permissions/port.ts";
import type { ToolResultContent, ToolUseBlock } from "../schema/content.ts";
import type { AgentEvent } from "../schema/events.ts";
import type { HookEventName, HookOutcome } from "../hooks/port.ts";
import type { AssistantMessage, HookRunRecord, ToolCallRecord, UserMessage } from "../schema/messages.ts";
import type { ClassifierRequestRecord, DecisionReason, PermissionDecisionRecord } from "../schema/permissions.ts";
import { nestedMemoryForCall } from "../memory/session-memory.ts";
import { classifyToolError, errorMessage } from "./classify-error.ts";
import { hookOutcomeNotices } from "../hooks/session-events.ts";
import { hookRunsOf } from "./hook-runs.ts";
import { askPermissionHooks, type Decided, type DispatchHooks } from "./permission-hooks.ts";
import { applyResultBudget, DEFAULT_MAX_RESULT_CHARS } from "./result-budget.ts";
import { findToolByName, type ContextModifier, type Tool, type ToolResult, type ToolUseContext } from "./tool.ts";

export const INTERRUPTED_MESSAGE = "Interrupted by user: the tool call was stopped before it finished.";
export const REJECTED_MESSAGE =
  "The user doesn't want to proceed with this tool use. The tool use was rejected (eg. if it was a file edit, the new_string was NOT written to the file). STOP what you are doing and wait for the user to tell you how to proceed.";

export type PipelineServices = {
  gate: PermissionGate;
  prompter: PermissionPrompter;
  hooks: HookDispatcher;
  uuid: () => string;
  now: () => number;
  timestamp: () => string;
};

export type ToolRunOutcome = {
  message: UserMessage;
  record: ToolCallRecord;
  contextModifier?: ContextModifier;
  denied: boolean;
  /** A hook of this call said `continue: false`: the loop stops after this batch. */
  stop?: { hookName: string; stopReason?: string };
};

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
  const permission = yield* decide(checkArgs, services, dispatchHooks, (request) => (classifierRequest = request));
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

type OutcomeExtra = {
  output?: unknown;
  stop?: { hookName: string; stopReason?: string };
  decision?: PermissionDecisionRecord;
  errorClass?: string;
  contextModifier?: ContextModifier;
  denied?: boolean;
};

type OutcomeOrigin = {
  block: ToolUseBlock;
  assistantMessage: AssistantMessage;
  context: ToolUseContext;
  services: PipelineServices;
  batch: number;
  startedAt: number;
  permissionWaitMs: number;
  /** Hook runs recorded so far; left out of the record when none ran. */
  hooks?: readonly HookRunRecord[];
  classifierRequest?: ClassifierRequestRecord | undefined;
};

export function buildOutcome(origin: OutcomeOrigin, content: ToolResultContent, isError: boolean, extra: OutcomeExtra): ToolRunOutcome {
  const { block, services, context } = origin;
  const endedAt = services.now();
  const record: ToolCallRecord = {
    toolUseId: block.id,
    name: block.name,
    startedAt: origin.startedAt,
    endedAt,
    durationMs: endedAt - origin.startedAt,
    permissionWaitMs: origin.permissionWaitMs,
    isError,
    batch: origin.batch,
    ...(extra.decision ? { decision: extra.decision } : {}),
    ...(extra.errorClass ? { errorClass: extra.errorClass } : {}),
    ...(origin.hooks && origin.hooks.length > 0 ? { hooks: [...origin.hooks] } : {}),
    ...(origin.classifierRequest ? { classifierRequest: origin.classifierRequest } : {}),
  };
  const message: UserMessage = {
    type: "user",
    uuid: services.uuid(),
    timestamp: services.timestamp(),
    message: { role: "user", content: [{ type: "tool_result", tool_use_id: block.id, content, ...(isError ? { is_error: true } : {}) }] },
    toolUseResult: extra.output ?? (isError ? `Error: ${typeof content === "string" ? content : "tool error"}` : undefined),
    sourceToolAssistantUUID: origin.assistantMessage.uuid,
    toolCall: record,
    ...(context.agentId ? { agentId: context.agentId, isSidechain: true } : {}),
  };
  return {
    message,
    record,
    denied: extra.denied ?? false,
    ...(extra.contextModifier ? { contextModifier: extra.contextModifier } : {}),
    ...(extra.stop ? { stop: extra.stop } : {}),
  };
}

/** The gate's decision, asking a person (or PermissionRequest hooks) when it says ask; a classifier request it made is handed to `onClassifierRequest`. */
async function* decide(
  args: PermissionCheckArgs,
  services: PipelineServices,
  dispatchHooks: DispatchHooks,
  onClassifierRequest: (request: ClassifierRequestRecord) => void,
): AsyncGenerator<AgentEvent, Decided> {
  const result = await services.gate.check(args);
  if (result.classifierRequest) onClassifierRequest(result.classifierRequest);
  if (result.behavior === "allow") {
    return { behavior: "allow", reason: result.reason, waitedMs: 0, asked: false, ...(result.updatedInput ? { updatedInput: result.updatedInput } : {}) };
  }
  if (result.behavior === "deny") return { behavior: "deny", reason: result.reason, waitedMs: 0, asked: false, message: result.message };

  const suggestions = result.suggestions ?? [];
  // PermissionRequest hooks may answer the prompt before anyone is asked.
  const hooked = yield* askPermissionHooks(args, suggestions, dispatchHooks);
  if (hooked) return hooked;

  const requestId = services.uuid();
  yield {
    type: "permission-request",
    requestId,
    toolUseId: args.toolUseId,
    toolName: args.tool.name,
    input: args.input,
    ...(result.message ? { message: result.message } : {}),
    reason: result.reason,
    suggestions,
  };
  const askedAt = services.now();
  let answer;
  try {
    answer = await services.prompter.ask(
      {
        requestId,
        toolUseId: args.toolUseId,
        toolName: args.tool.name,
        input: args.input,
        reason: result.reason,
        suggestions,
        ...(result.message ? { message: result.message } : {}),
      },
      args.context.signal,
    );
  } catch {
    answer = { behavior: "deny" as const, feedback: undefined };
  }
  const waitedMs = services.now() - askedAt;
  yield { type: "permission-resolved", requestId, behavior: answer.behavior };
  if (args.context.signal.aborted) {
    return { behavior: "deny", reason: { type: "user", scope: "reject" }, waitedMs, asked: true, message: INTERRUPTED_MESSAGE };
  }
  await services.gate.recordAnswer?.(args, answer, suggestions);
  if (answer.behavior === "allow") {
    const mode = answer.mode;
    if (mode) args.context.setAppState((state) => (state.permissionMode === mode ? state : { ...state, permissionMode: mode }));
    return {
      behavior: "allow",
      reason: { type: "user", scope: answer.scope },
      waitedMs,
      asked: true,
      ...(answer.updatedInput ? { updatedInput: answer.updatedInput } : {}),
    };
  }
  const feedback = answer.feedback?.trim();
  if (result.reason.type === "headless") {
    return { behavior: "deny", reason: result.reason, waitedMs, asked: true, message: feedback ?? REJECTED_MESSAGE };
  }
  return {
    behavior: "deny",
    reason: services.prompter.headless
      ? { type: "headless", reason: feedback ?? "running non-interactively" }
      : { type: "user", scope: "reject", ...(feedback ? { feedback } : {}) },
    waitedMs,
    asked: true,
    message: args.tool.rejectionMessage?.(feedback) ?? (feedback ? `${REJECTED_MESSAGE}\nThe user said: ${feedback}` : REJECTED_MESSAGE),
  };
}

async function* callTool(
  tool: Tool,
  input: unknown,
  context: ToolUseContext,
  block: ToolUseBlock,
  assistantMessage: AssistantMessage,
): AsyncGenerator<AgentEvent, ToolResult> {
  const called = tool.call(input, context, { toolUseId: block.id, assistantMessage });
  if (!isAsyncGenerator(called)) return await raceAbort(called, context.signal);
  while (true) {
    const step = await raceAbort(called.next(), context.signal).catch(async (error: unknown) => {
      await called.return?.(undefined as never).catch(() => undefined);
      throw error;
    });
    if (step.done) return step.value;
    yield { type: "tool-progress", toolUseId: block.id, name: tool.name, data: step.value.data };
  }
}

/** A tool that ignores its abort signal must not hold the session: stop waiting for it. */
function raceAbort<T>(promise: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) return Promise.reject(new DOMException("Aborted", "AbortError"));
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(new DOMException("Aborted", "AbortError"));
    signal.addEventListener("abort", onAbort, { once: true });
    promise.then(
      (value) => {
        signal.removeEventListener("abort", onAbort);
        resolve(value);
      },
      (error: unknown) => {
        signal.removeEventListener("abort", onAbort);
        reject(error);
      },
    );
  });
}

function isAsyncGenerator<T>(value: unknown): value is AsyncGenerator<{ data: unknown }, T> {
  return typeof value === "object" && value !== null && typeof (value as AsyncGenerator).next === "function" && Symbol.asyncIterator in value;
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
