import { z } from "zod";
import { contentBlockSchema } from "./content.ts";
import { classifierRequestRecordSchema, permissionDecisionRecordSchema } from "./permissions.ts";
import { usageSchema } from "./usage.ts";

/** One hook command run (for a tool call, or for a session event such as Stop), for the timeline. */
export const hookRunRecordSchema = z.object({
  event: z.string(),
  name: z.string(),
  startedAt: z.number(),
  endedAt: z.number(),
  /** "ok", "blocked", "error", or "exit <code>" for other non-zero exits. */
  outcome: z.string(),
  /** The hook's stdout (clipped), unless it asked for `suppressOutput`. */
  output: z.string().optional(),
});
export type HookRunRecord = z.infer<typeof hookRunRecordSchema>;

/** Timing and decision of one tool call: what the timeline draws and the transcript keeps. */
export const toolCallRecordSchema = z.object({
  toolUseId: z.string(),
  name: z.string(),
  startedAt: z.number(),
  endedAt: z.number(),
  durationMs: z.number(),
  permissionWaitMs: z.number(),
  decision: permissionDecisionRecordSchema.optional(),
  isError: z.boolean(),
  errorClass: z.string().optional(),
  /** Index of the concurrency batch this call ran in; calls sharing a batch ran in parallel. */
  batch: z.number().optional(),
  /** Hooks that ran for this call, when any did. */
  hooks: z.array(hookRunRecordSchema).optional(),
  /** The request auto mode's classifier made to decide this call (none when no classifier ran, or its verdict was cached). */
  classifierRequest: classifierRequestRecordSchema.optional(),
});
export type ToolCallRecord = z.infer<typeof toolCallRecordSchema>;

/** Timing of one model request, for the timeline. */
export const modelCallRecordSchema = z.object({
  model: z.string(),
  startedAt: z.number(),
  firstTokenAt: z.number().nullable(),
  endedAt: z.number(),
  attempts: z.number(),
});
export type ModelCallRecord = z.infer<typeof modelCallRecordSchema>;

const envelope = {
  uuid: z.string(),
  parentUuid: z.string().nullable().optional(),
  timestamp: z.string(),
  isSidechain: z.boolean().optional(),
  agentId: z.string().optional(),
};

export const userMessageSchema = z.looseObject({
  ...envelope,
  type: z.literal("user"),
  message: z.looseObject({
    role: z.literal("user"),
    content: z.union([z.string(), z.array(contentBlockSchema)]),
  }),
  /** Not shown as the user's words: resume notes, hook context, reminders. */
  isMeta: z.boolean().optional(),
  isCompactSummary: z.boolean().optional(),
  /** The structured output of the tool, as Claude Code stores it. */
  toolUseResult: z.unknown().optional(),
  sourceToolAssistantUUID: z.string().optional(),
  toolCall: toolCallRecordSchema.optional(),
});
export type UserMessage = z.infer<typeof userMessageSchema>;

export const assistantMessageSchema = z.looseObject({
  ...envelope,
  type: z.literal("assistant"),
  message: z.looseObject({
    id: z.string(),
    type: z.literal("message").optional(),
    role: z.literal("assistant"),
    model: z.string(),
    content: z.array(contentBlockSchema),
    stop_reason: z.string().nullable().optional(),
    stop_sequence: z.string().nullable().optional(),
    usage: usageSchema.optional(),
  }),
  requestId: z.string().optional(),
  /** The stream was cut before the response completed; only whole blocks were kept. */
  isPartial: z.boolean().optional(),
  isApiErrorMessage: z.boolean().optional(),
  modelCall: modelCallRecordSchema.optional(),
});
export type AssistantMessage = z.infer<typeof assistantMessageSchema>;

export const compactMetadataSchema = z.looseObject({
  trigger: z.enum(["manual", "auto", "reactive"]),
  preTokens: z.number(),
  postTokens: z.number().optional(),
  summarizedUuids: z.array(z.string()).optional(),
  /**
   * Cairn's: the tokens of context compacted away in this conversation so far, this compaction included. The
   * task budget counts them as spent, so a resumed session goes on with what was left.
   */
  compactedTokens: z.number().optional(),
});
export type CompactMetadata = z.infer<typeof compactMetadataSchema>;

export const systemMessageSchema = z.looseObject({
  ...envelope,
  type: z.literal("system"),
  subtype: z.string(),
  content: z.string().optional(),
  level: z.enum(["info", "warning", "error"]).optional(),
  logicalParentUuid: z.string().nullable().optional(),
  compactMetadata: compactMetadataSchema.optional(),
});
export type SystemMessage = z.infer<typeof systemMessageSchema>;

export const conversationMessageSchema = z.discriminatedUnion("type", [userMessageSchema, assistantMessageSchema, systemMessageSchema]);
export type ConversationMessage = z.infer<typeof conversationMessageSchema>;

export function isCompactBoundary(message: ConversationMessage): message is SystemMessage {
  return message.type === "system" && message.subtype === "compact_boundary";
}
