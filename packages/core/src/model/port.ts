import type { ContentBlock } from "../schema/content.ts";
import type { Usage } from "../schema/usage.ts";
import type { TaskBudget } from "./task-budget.ts";

/** A system prompt block; `cache_control` marks a prompt-cache breakpoint. */
export type SystemBlock = { type: "text"; text: string; cache_control?: { type: "ephemeral" } };

export type ApiMessage = {
  role: "user" | "assistant";
  content: string | Array<ContentBlock & { cache_control?: { type: "ephemeral" } }>;
};

export type ApiTool = {
  name: string;
  description: string;
  input_schema: Record<string, unknown>;
  cache_control?: { type: "ephemeral" };
};

/** The request's `thinking` field: adaptive (the model decides), a fixed budget, or off. */
export type ThinkingConfig = { type: "adaptive" } | { type: "enabled"; budget_tokens: number } | { type: "disabled" };

/** The body of one `POST /v1/messages`, as Cairn builds it. */
export type ModelRequest = {
  model: string;
  max_tokens: number;
  system: SystemBlock[];
  messages: ApiMessage[];
  tools?: ApiTool[];
  thinking?: ThinkingConfig;
  metadata?: { user_id?: string };
  temperature?: number;
  /** The beta messages API's output settings: the task budget (`task-budgets-2026-03-13`). */
  output_config?: { task_budget?: TaskBudget };
  /** `{ type: "tool", name }` forces that tool (auto mode's classifier answers only through it). */
  tool_choice?: { type: "auto" | "any" } | { type: "tool"; name: string };
  /** Sent as the `anthropic-beta` header. */
  betas?: string[];
};

/**
 * The stream of one response, normalised from the wire's SSE events. The delta parts have the same
 * shape as the `AgentEvent`s of the same name, so the loop passes them on without copying.
 */
export type ModelStreamPart =
  | { type: "message-start"; id: string; model: string; usage: Usage; requestId?: string }
  | { type: "block-start"; index: number; block: ContentBlock }
  | { type: "text-delta"; index: number; text: string }
  | { type: "thinking-delta"; index: number; thinking: string }
  | { type: "signature-delta"; index: number; signature: string }
  | { type: "tool-input-delta"; index: number; partialJson: string }
  | { type: "block-stop"; index: number }
  | { type: "message-delta"; stopReason: string | null; stopSequence: string | null; usage: Partial<Usage> }
  | { type: "message-stop" };

/** The port every model implementation fills: the Anthropic SDK client, the scripted fake. */
export interface ModelClient {
  /** Throws a `ModelError` for anything that is not a response stream. */
  stream(request: ModelRequest, options: { signal: AbortSignal }): AsyncIterable<ModelStreamPart>;
  /**
   * The same stream with the parts of each network chunk handed over together (optional): a consumer
   * that reads ahead then pays one await per chunk instead of one per part.
   */
  streamBatches?(request: ModelRequest, options: { signal: AbortSignal }): AsyncIterable<readonly ModelStreamPart[]>;
}

export const modelErrorCodes = [
  "overloaded",
  "rate_limited",
  "server_error",
  "connection",
  "timeout",
  "prompt_too_long",
  "invalid_request",
  "authentication",
  "permission",
  "not_found",
  "stream_error",
  "aborted",
  "unknown",
] as const;
export type ModelErrorCode = (typeof modelErrorCodes)[number];

/** A transport fact about a failed model call. Retry policy branches on `code` and `status`, never on text. */
export class ModelError extends Error {
  override readonly name = "ModelError";
  readonly code: ModelErrorCode;
  readonly status: number | null;
  readonly retryAfterMs: number | null;
  readonly requestId: string | null;

  constructor(
    code: ModelErrorCode,
    message: string,
    options: { status?: number | null; retryAfterMs?: number | null; requestId?: string | null; cause?: unknown } = {},
  ) {
    super(message, { cause: options.cause });
    this.code = code;
    this.status = options.status ?? null;
    this.retryAfterMs = options.retryAfterMs ?? null;
    this.requestId = options.requestId ?? null;
  }
}

export function isModelError(error: unknown): error is ModelError {
  return error instanceof ModelError;
}
