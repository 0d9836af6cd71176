import { z } from "zod";
import { usageSchema } from "./usage.ts";

export const permissionModeSchema = z.enum(["default", "acceptEdits", "plan", "auto", "bypassPermissions"]);
export type PermissionMode = z.infer<typeof permissionModeSchema>;

export const permissionRuleSourceSchema = z.enum(["cliArg", "session", "localSettings", "projectSettings", "userSettings", "policySettings", "command"]);
export type PermissionRuleSource = z.infer<typeof permissionRuleSourceSchema>;

export const permissionBehaviorSchema = z.enum(["allow", "deny", "ask"]);
export type PermissionBehavior = z.infer<typeof permissionBehaviorSchema>;

/** Why a permission decision was made. Shown in the UI, the timeline and the transcript. */
export const decisionReasonSchema = z.discriminatedUnion("type", [
  z.object({ type: z.literal("rule"), rule: z.string(), source: permissionRuleSourceSchema, behavior: permissionBehaviorSchema }),
  z.object({ type: z.literal("hook"), hookName: z.string(), reason: z.string().optional() }),
  z.object({ type: z.literal("mode"), mode: permissionModeSchema, reason: z.string().optional() }),
  z.object({ type: z.literal("classifier"), classifier: z.string(), reason: z.string() }),
  z.object({ type: z.literal("sandbox"), reason: z.string() }),
  z.object({ type: z.literal("workspace"), reason: z.string() }),
  z.object({ type: z.literal("tool"), reason: z.string() }),
  z.object({
    type: z.literal("user"),
    scope: z.enum(["once", "session", "always", "reject"]),
    feedback: z.string().optional(),
  }),
  z.object({ type: z.literal("headless"), reason: z.string() }),
  z.object({ type: z.literal("default"), reason: z.string() }),
]);
export type DecisionReason = z.infer<typeof decisionReasonSchema>;

/**
 * One request auto mode's classifier made to the model: a small call of its own, outside the conversation, whose
 * tokens count in the session's usage and cost. `failure` names why it gave no verdict (`api_error`, `unparsable`).
 */
export const classifierRequestRecordSchema = z.object({
  model: z.string(),
  startedAt: z.number(),
  endedAt: z.number(),
  usage: usageSchema.optional(),
  failure: z.string().optional(),
});
export type ClassifierRequestRecord = z.infer<typeof classifierRequestRecordSchema>;

export const permissionDecisionRecordSchema = z.object({
  behavior: z.enum(["allow", "deny"]),
  reason: decisionReasonSchema,
  /** Time the call waited for a person to answer, 0 when decided without asking. */
  waitedMs: z.number(),
  asked: z.boolean(),
});
export type PermissionDecisionRecord = z.infer<typeof permissionDecisionRecordSchema>;

export const permissionAnswerSchema = z.discriminatedUnion("behavior", [
  z.object({
    behavior: z.literal("allow"),
    scope: z.enum(["once", "session", "always"]),
    updatedInput: z.record(z.string(), z.unknown()).optional(),
    /** Switch the session to this mode once approved (a plan approved into acceptEdits). */
    mode: z.enum(["default", "acceptEdits"]).optional(),
  }),
  z.object({ behavior: z.literal("deny"), feedback: z.string().optional() }),
]);
export type PermissionAnswer = z.infer<typeof permissionAnswerSchema>;
