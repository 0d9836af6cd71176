import { z } from "zod";

// Only the fields the simulator reads are checked; everything else passes through untouched,
// because the request log must keep exactly what the client sent.
const requestBlockSchema = z.looseObject({ type: z.string() });

export const requestMessageSchema = z.looseObject({
  role: z.enum(["user", "assistant"]),
  content: z.union([z.string(), z.array(requestBlockSchema)]),
});

export const messagesRequestSchema = z.looseObject({
  model: z.string().optional(),
  messages: z.array(requestMessageSchema),
  system: z.union([z.string(), z.array(requestBlockSchema)]).optional(),
  tools: z.array(z.looseObject({ name: z.string().optional() })).optional(),
  stream: z.boolean().optional(),
});

export type MessagesRequest = z.infer<typeof messagesRequestSchema>;
export type RequestMessage = z.infer<typeof requestMessageSchema>;

export type ParsedRequest = { ok: true; request: MessagesRequest } | { ok: false; message: string };

export function parseMessagesRequest(body: unknown): ParsedRequest {
  const result = messagesRequestSchema.safeParse(body);
  if (result.success) return { ok: true, request: result.data };
  return { ok: false, message: `model-sim: invalid request body:\n${z.prettifyError(result.error)}` };
}

/** Rough token estimate used when a turn does not script its usage: a quarter of the JSON length. */
export function estimateInputTokens(request: Pick<MessagesRequest, "messages">): number {
  return Math.max(1, Math.ceil(JSON.stringify(request.messages).length / 4));
}

/** The text of a block list or string, ignoring non-text blocks. */
export function textOf(content: string | ReadonlyArray<{ type: string }>): string {
  if (typeof content === "string") return content;
  return content
    .map((block) => ("text" in block && typeof block.text === "string" ? block.text : ""))
    .filter((text) => text.length > 0)
    .join("\n");
}
