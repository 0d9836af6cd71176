import { z } from "zod";

/** Content blocks as the Anthropic Messages API defines them. Loose objects: transcripts from newer
 * Claude Code versions carry extra fields (e.g. `caller`), which must survive a round trip. */
export const textBlockSchema = z.looseObject({ type: z.literal("text"), text: z.string() });
export const thinkingBlockSchema = z.looseObject({
  type: z.literal("thinking"),
  thinking: z.string(),
  signature: z.string().optional(),
});
export const redactedThinkingBlockSchema = z.looseObject({ type: z.literal("redacted_thinking"), data: z.string() });
export const toolUseBlockSchema = z.looseObject({
  type: z.literal("tool_use"),
  id: z.string(),
  name: z.string(),
  input: z.unknown(),
});
export const imageBlockSchema = z.looseObject({
  type: z.literal("image"),
  source: z.looseObject({
    type: z.literal("base64"),
    media_type: z.string(),
    data: z.string(),
  }),
});
export const toolResultContentSchema = z.union([z.string(), z.array(z.union([textBlockSchema, imageBlockSchema, z.looseObject({ type: z.string() })]))]);
export const toolResultBlockSchema = z.looseObject({
  type: z.literal("tool_result"),
  tool_use_id: z.string(),
  content: toolResultContentSchema.optional(),
  is_error: z.boolean().optional(),
});

export const contentBlockSchema = z.union([
  textBlockSchema,
  thinkingBlockSchema,
  redactedThinkingBlockSchema,
  toolUseBlockSchema,
  toolResultBlockSchema,
  imageBlockSchema,
]);

export type TextBlock = z.infer<typeof textBlockSchema>;
export type ThinkingBlock = z.infer<typeof thinkingBlockSchema>;
export type RedactedThinkingBlock = z.infer<typeof redactedThinkingBlockSchema>;
export type ToolUseBlock = z.infer<typeof toolUseBlockSchema>;
export type ToolResultBlock = z.infer<typeof toolResultBlockSchema>;
export type ImageBlock = z.infer<typeof imageBlockSchema>;
export type ToolResultContent = z.infer<typeof toolResultContentSchema>;
export type ContentBlock = z.infer<typeof contentBlockSchema>;
