import type { HookDispatcher } from "../hooks/port.ts";
import type { PermissionGate, PermissionPrompter } from "../permissions/port.ts";
import type { ToolCallRecord, UserMessage } from "../schema/messages.ts";
import type { ContextModifier } from "./tool.ts";

export const INTERRUPTED_MESSAGE = "Interrupted by user: the tool call was stopped before it finished.";

export type PipelineServices = {
  gate: PermissionGate;
  prompter: PermissionPrompter;
  hooks: HookDispatcher;
  uuid: () => string;
  now: () => number;
  timestamp: () => string;
  /** The id a permission question about this call is asked under (a call asked again after a takeover keeps its first one); default a new uuid. */
  permissionRequestId?: (toolUseId: string) => string | undefined;
};

export type ToolRunOutcome = {
  message: UserMessage;
  record: ToolCallRecord;
  contextModifier?: ContextModifier;
  denied: boolean;
  /** A hook of this call said `continue: false`: the loop stops after this batch. */
  stop?: { hookName: string; stopReason?: string };
};
