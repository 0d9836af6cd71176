import type { AgentEventOf, DecisionReason, PermissionMode, TodoItem, ToolCallRecord, UsageTotals } from "@cairn/core/schema";

import type { SessionEvent } from "../trpc/types.ts";

export type { SessionEvent };

/** A conversation message as JSON delivers it (fields typed `unknown` become optional on the wire). */
export type WireMessage = Extract<SessionEvent, { type: "message" }>["message"];

export type BackgroundAgentView = Extract<SessionEvent, { type: "session-state" }>["backgroundAgents"][number];

export type ToolStatus = "pending" | "running" | "completed" | "error";

export type ToolDecisionView = {
  behavior: "allow" | "deny";
  reason: DecisionReason;
  waitedMs: number;
};

/** One tool call a subagent made, as its Agent card lists it. */
export type SubagentStepView = { toolUseId: string; name: string; summary: string; status: ToolStatus; durationMs?: number };

/** The subagent an Agent call runs: what it is doing, from the Agent tool's progress events. */
export type SubagentView = {
  agentId: string;
  agentType: string;
  description: string;
  /** Its tool calls, in the order they appeared. */
  steps: SubagentStepView[];
  /** Its latest text (the final answer once it is done; the card also shows the tool result). */
  text: string;
  done: boolean;
  reason?: string;
};

/** One tool call as the chat shows it: a small state machine pending → running → completed | error. */
export type ToolCallView = {
  toolUseId: string;
  name: string;
  status: ToolStatus;
  /** The parsed input once known; while the model streams it only `inputJson` grows. */
  input: unknown;
  inputJson: string;
  /** Streamed output (e.g. Bash stdout), as text. */
  progress: string;
  result: { text: string; isError: boolean } | undefined;
  record: ToolCallRecord | undefined;
  decision: ToolDecisionView | undefined;
  awaitingPermission: boolean;
  /** Agent calls: the subagent's progress. */
  subagent?: SubagentView;
};

export type AssistantBlockView =
  | { type: "text"; text: string }
  | { type: "thinking"; text: string; redacted: boolean }
  | { type: "tool_use"; toolUseId: string };

export type ChatItem =
  | { kind: "user"; id: string; text: string }
  /** `id` is the API message id (deltas and tombstones name it); `uuid` the transcript line, once assembled. */
  | { kind: "assistant"; id: string; uuid?: string; model: string; streaming: boolean; partial: boolean; blocks: AssistantBlockView[]; usage?: UsageTotals }
  | { kind: "compact"; id: string; trigger: string; preTokens: number; postTokens: number | undefined; summarizedCount: number | undefined }
  | { kind: "notice"; id: string; level: "info" | "warning" | "error"; code: string; message: string }
  /** Repeated denials: a rule that would stop the questions, offered for this session. */
  | { kind: "rule-suggestion"; id: string; toolName: string; rule: string; denials: number }
  | { kind: "retry"; id: string; attempt: number; maxAttempts: number; delayMs: number; status: number | null; message: string }
  | { kind: "error"; id: string; code: string; message: string }
  | {
      kind: "result";
      id: string;
      reason: string;
      numTurns: number;
      durationMs: number;
      usage: UsageTotals;
      /** The session's model when the run ended, to price the turn. */
      model: string;
      errorMessage: string | undefined;
      /** With a token budget: how much of it the run spent. */
      tokenBudget?: AgentEventOf<"result">["tokenBudget"];
    };

/** A question waiting for the user; the same shape whether it came live or in `session.get`'s snapshot. */
export type PermissionRequestView = Omit<AgentEventOf<"permission-request">, "type" | "input"> & { input?: unknown };

export type ChatState = {
  items: ChatItem[];
  toolCalls: Record<string, ToolCallView>;
  /** Id of the assistant message currently streaming, if any. */
  streamingId: string | null;
  permissionRequests: PermissionRequestView[];
  running: boolean;
  permissionMode: PermissionMode;
  model: string;
  todos: TodoItem[];
  /** Input tokens of the last response, null before the first. */
  contextTokens: number | null;
  contextWindow: number;
  /** Prompts waiting for the current run to end. */
  queued: number;
  /** Agents started with `run_in_background`: those running and the latest that ended. */
  backgroundAgents: BackgroundAgentView[];
  /** Context size after each compaction, for the meter's marks. */
  compactions: { preTokens: number; postTokens: number }[];
  /** The server's id of the last event applied; the stream resumes after it. */
  lastEventId: string | null;
};

export const initialChatState = (): ChatState => ({
  items: [],
  toolCalls: {},
  streamingId: null,
  permissionRequests: [],
  running: false,
  permissionMode: "default",
  model: "",
  todos: [],
  contextTokens: null,
  contextWindow: 200_000,
  queued: 0,
  backgroundAgents: [],
  compactions: [],
  lastEventId: null,
});
