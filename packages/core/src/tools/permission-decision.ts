import type { PermissionCheckArgs } from "../permissions/port.ts";
import type { AgentEvent } from "../schema/events.ts";
import type { ClassifierRequestRecord } from "../schema/permissions.ts";
import { INTERRUPTED_MESSAGE, type PipelineServices } from "./pipeline-types.ts";
import { askPermissionHooks, type Decided, type DispatchHooks } from "./permission-hooks.ts";

const REJECTED_MESSAGE =
  "The user doesn't want to proceed with this tool use. The tool use was rejected (eg. if it was a file edit, the new_string was NOT written to the file). STOP what you are doing and wait for the user to tell you how to proceed.";

/** The gate's decision, asking a person (or PermissionRequest hooks) when it says ask; a classifier request it made is handed to `onClassifierRequest`. */
export async function* decidePermission(
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

  const requestId = services.permissionRequestId?.(args.toolUseId) ?? services.uuid();
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
