import { z } from "zod";

export const textBlockSchema = z.object({ type: z.literal("text"), text: z.string() });

export const thinkingBlockSchema = z.object({
  type: z.literal("thinking"),
  thinking: z.string(),
  signature: z.string().optional(),
});

export const redactedThinkingBlockSchema = z.object({
  type: z.literal("redacted_thinking"),
  data: z.string(),
});

export const toolUseBlockSchema = z.object({
  type: z.literal("tool_use"),
  id: z.string().min(1).optional(),
  name: z.string().min(1),
  input: z.record(z.string(), z.unknown()),
});

export const scriptedBlockSchema = z.discriminatedUnion("type", [textBlockSchema, thinkingBlockSchema, redactedThinkingBlockSchema, toolUseBlockSchema]);

export const stopReasonSchema = z.enum(["end_turn", "tool_use", "max_tokens", "stop_sequence"]);

const tokenCount = z.int().nonnegative();

export const scriptedUsageSchema = z.object({
  input_tokens: tokenCount.optional(),
  output_tokens: tokenCount.optional(),
  cache_read_input_tokens: tokenCount.optional(),
  cache_creation_input_tokens: tokenCount.optional(),
});

const afterEvents = z.int().nonnegative();

export const faultSchema = z.discriminatedUnion("kind", [
  z.strictObject({
    kind: z.literal("http"),
    status: z.int().min(400).max(599),
    retryAfter: z.number().nonnegative().optional(),
    errorType: z.string().min(1).optional(),
    message: z.string().optional(),
  }),
  z.strictObject({
    kind: z.literal("stream-error"),
    afterEvents,
    errorType: z.string().min(1).optional(),
    message: z.string().optional(),
  }),
  z.strictObject({ kind: z.literal("disconnect"), afterEvents }),
  z.strictObject({ kind: z.literal("stall"), afterEvents, ms: z.int().nonnegative() }),
]);

/** Routes a turn to one kind of request (e.g. a subagent's) when several conversations share the simulator. */
export const turnMatchSchema = z
  .strictObject({
    /** The request's first message contains this text. */
    firstMessageIncludes: z.string().min(1).optional(),
    /** The request's system prompt contains this text (e.g. a side request such as a permission classifier's). */
    systemIncludes: z.string().min(1).optional(),
    /** The request names exactly this model. */
    model: z.string().min(1).optional(),
  })
  .refine((match) => match.firstMessageIncludes !== undefined || match.systemIncludes !== undefined || match.model !== undefined, {
    message: "a match needs firstMessageIncludes, systemIncludes or model",
  });

export const turnSchema = z.strictObject({
  /** Without it a turn answers whichever request comes next; with it, only a request that fits. */
  match: turnMatchSchema.optional(),
  content: z.array(scriptedBlockSchema),
  stop_reason: stopReasonSchema.optional(),
  usage: scriptedUsageSchema.optional(),
  model: z.string().min(1).optional(),
  faults: z.array(faultSchema).optional(),
  chunkDelayMs: z.int().nonnegative().optional(),
});

export const scenarioSchema = z.strictObject({ turns: z.array(turnSchema) });

export type ScriptedBlock = z.infer<typeof scriptedBlockSchema>;
export type StopReason = z.infer<typeof stopReasonSchema>;
export type ScriptedUsage = z.infer<typeof scriptedUsageSchema>;
export type Fault = z.infer<typeof faultSchema>;
export type Turn = z.infer<typeof turnSchema>;
export type TurnMatch = z.infer<typeof turnMatchSchema>;
export type Scenario = z.infer<typeof scenarioSchema>;

/** Thrown when a scenario does not match `scenarioSchema`; `message` lists every problem with its path. */
export class ScenarioError extends Error {
  readonly code = "invalid_scenario";

  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = "ScenarioError";
  }
}

/** Validates unknown input (parsed JSON, a control request body) into a `Scenario`. */
export function parseScenario(input: unknown, source = "scenario"): Scenario {
  const result = scenarioSchema.safeParse(input);
  if (result.success) return result.data;
  throw new ScenarioError(`model-sim: invalid ${source}:\n${z.prettifyError(result.error)}`, {
    cause: result.error,
  });
}
