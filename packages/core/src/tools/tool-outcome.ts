import type { ToolResultContent, ToolUseBlock } from "../schema/content.ts";
import type { AssistantMessage, HookRunRecord, ToolCallRecord, UserMessage } from "../schema/messages.ts";
import type { ClassifierRequestRecord, PermissionDecisionRecord } from "../schema/permissions.ts";
import type { PipelineServices, ToolRunOutcome } from "./pipeline-types.ts";
import type { ContextModifier, ToolUseContext } from "./tool.ts";

export type OutcomeExtra = {
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

/** The `tool_result` message of a finished call and its record for the transcript (timings, decision, hooks, error class). */
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
