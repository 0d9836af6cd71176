import { z } from "zod";
import { conversationMessageSchema, hookRunRecordSchema, toolCallRecordSchema } from "./messages.ts";
import { decisionReasonSchema, permissionModeSchema } from "./permissions.ts";

export const usageTotalsSchema = z.object({
  inputTokens: z.number(),
  outputTokens: z.number(),
  cacheReadInputTokens: z.number(),
  cacheCreationInputTokens: z.number(),
});

export const terminalReasonSchema = z.enum([
  "completed",
  "max_turns",
  "aborted_streaming",
  "aborted_tools",
  "model_error",
  "prompt_too_long",
  "blocking_limit",
  "stop_hook_prevented",
  "hook_stopped",
]);
export type TerminalReason = z.infer<typeof terminalReasonSchema>;

export const terminalSchema = z.object({
  reason: terminalReasonSchema,
  turnCount: z.number(),
  error: z.object({ code: z.string(), message: z.string() }).optional(),
});
export type Terminal = z.infer<typeof terminalSchema>;

export const todoItemSchema = z.object({
  content: z.string().min(1),
  status: z.enum(["pending", "in_progress", "completed"]),
  activeForm: z.string().min(1),
});
export type TodoItem = z.infer<typeof todoItemSchema>;

/**
 * Everything the engine tells its callers, as one flat discriminated union named `<noun>-<verb>`.
 * Deltas are ephemeral (UI only); `message` events carry the assembled messages that history keeps.
 * Errors travel as events instead of ending the stream.
 * Built at its first use: a process that only emits events (`cairn -p`) never validates them, and its
 * 160 schemas would be built at every start.
 */
/**
 * The fields of a permission question: the `permission-request` event a tab sees, and what a session's owner keeps
 * with its lease for the node that takes it over. A function, so the schemas are built at first use.
 */
export const permissionQuestionFields = () => ({
  requestId: z.string(),
  toolUseId: z.string(),
  toolName: z.string(),
  input: z.unknown(),
  message: z.string().optional(),
  reason: decisionReasonSchema,
  /** Rules the user could add to stop being asked, e.g. `Bash(npm run test:*)`. */
  suggestions: z.array(z.string()),
});

export const agentEventSchema = z.lazy(() => agentEventUnion());

const agentEventUnion = () =>
  z.discriminatedUnion("type", [
    z.object({ type: z.literal("request-start"), model: z.string(), turn: z.number() }),
    /** A response began streaming; the deltas that follow belong to it until `message` or `tombstone`. */
    z.object({ type: z.literal("message-start"), messageId: z.string(), model: z.string() }),
    z.object({
      type: z.literal("block-start"),
      index: z.number(),
      blockType: z.string(),
      toolUseId: z.string().optional(),
      name: z.string().optional(),
    }),
    z.object({ type: z.literal("text-delta"), index: z.number(), text: z.string() }),
    z.object({ type: z.literal("thinking-delta"), index: z.number(), thinking: z.string() }),
    z.object({ type: z.literal("tool-input-delta"), index: z.number(), partialJson: z.string() }),
    z.object({ type: z.literal("block-stop"), index: z.number() }),
    z.object({ type: z.literal("message"), message: conversationMessageSchema }),
    z.object({
      type: z.literal("tool-start"),
      toolUseId: z.string(),
      name: z.string(),
      input: z.unknown(),
      startedAt: z.number(),
      batch: z.number(),
    }),
    z.object({ type: z.literal("tool-progress"), toolUseId: z.string(), name: z.string(), data: z.unknown() }),
    z.object({ type: z.literal("tool-end"), record: toolCallRecordSchema }),
    z.object({ type: z.literal("permission-request"), ...permissionQuestionFields() }),
    z.object({ type: z.literal("permission-resolved"), requestId: z.string(), behavior: z.enum(["allow", "deny"]) }),
    z.object({
      type: z.literal("permission-decision"),
      toolUseId: z.string(),
      toolName: z.string(),
      behavior: z.enum(["allow", "deny"]),
      reason: decisionReasonSchema,
      waitedMs: z.number(),
    }),
    z.object({
      type: z.literal("permission-suggestion"),
      toolName: z.string(),
      rule: z.string(),
      denials: z.number(),
    }),
    z.object({
      type: z.literal("retry"),
      attempt: z.number(),
      maxAttempts: z.number(),
      delayMs: z.number(),
      status: z.number().nullable(),
      errorCode: z.string(),
      message: z.string(),
    }),
    z.object({ type: z.literal("model-fallback"), from: z.string(), to: z.string(), reason: z.string() }),
    z.object({ type: z.literal("tombstone"), messageId: z.string(), uuid: z.string().optional(), reason: z.string() }),
    z.object({
      type: z.literal("compact-boundary"),
      trigger: z.enum(["manual", "auto", "reactive"]),
      preTokens: z.number(),
      postTokens: z.number(),
      summarizedCount: z.number(),
    }),
    /** Hooks of a session event (UserPromptSubmit, Stop, SessionStart, PreCompact, …); tool hooks travel on the call's record. */
    z.object({ type: z.literal("hook-runs"), event: z.string(), runs: z.array(hookRunRecordSchema) }),
    z.object({ type: z.literal("todos-update"), todos: z.array(todoItemSchema) }),
    z.object({ type: z.literal("mode-change"), mode: permissionModeSchema }),
    z.object({
      type: z.literal("notice"),
      level: z.enum(["info", "warning", "error"]),
      code: z.string(),
      message: z.string(),
    }),
    z.object({ type: z.literal("error"), code: z.string(), message: z.string(), status: z.number().nullable() }),
    z.object({
      type: z.literal("result"),
      terminal: terminalSchema,
      usage: usageTotalsSchema,
      numTurns: z.number(),
      durationMs: z.number(),
      durationApiMs: z.number(),
      permissionDenials: z.array(z.object({ toolName: z.string(), toolUseId: z.string(), input: z.unknown() })),
      /** Auto mode's classifier requests in this run: their tokens (not in `usage`, which is the session model's) and cost. */
      classifier: z.object({ requests: z.number(), usage: usageTotalsSchema, costUsd: z.number() }).optional(),
      /** With a token budget: the budget, the output tokens spent, the continuations, and why they stopped. */
      tokenBudget: z
        .object({
          budget: z.number(),
          used: z.number(),
          continuations: z.number(),
          stoppedBy: z.enum(["spent", "diminishing_returns"]).optional(),
        })
        .optional(),
    }),
  ]);
export type AgentEvent = z.infer<typeof agentEventSchema>;
export type AgentEventType = AgentEvent["type"];
export type AgentEventOf<T extends AgentEventType> = Extract<AgentEvent, { type: T }>;
