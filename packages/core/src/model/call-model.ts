import type { ContentBlock } from "../schema/content.ts";
import type { ModelCallRecord } from "../schema/messages.ts";
import { MessageAccumulator, type AssembledMessage } from "./accumulator.ts";
import { ModelError, type ModelClient, type ModelRequest, type ModelStreamPart } from "./port.ts";
import { isRetryable, retryDelayMs, type RetryPolicy } from "./retry.ts";
import { toModelError } from "./anthropic-client.ts";

export type CallModelEvent =
  | { type: "part"; messageId: string; part: ModelStreamPart; completed?: ContentBlock }
  | { type: "retry"; attempt: number; maxAttempts: number; delayMs: number; status: number | null; errorCode: string; message: string }
  | { type: "model-fallback"; from: string; to: string; reason: string }
  /** Deltas of a failed attempt were already shown; the UI must drop them. */
  | { type: "discard"; messageId: string; reason: string };

export type CallModelResult =
  | { kind: "complete"; message: AssembledMessage; record: ModelCallRecord }
  /** The stream broke after some content; what was whole is kept. */
  | { kind: "cut"; message: AssembledMessage; error: ModelError; record: ModelCallRecord }
  | { kind: "failed"; error: ModelError; record: ModelCallRecord };

export type CallModelOptions = {
  client: ModelClient;
  request: ModelRequest;
  signal: AbortSignal;
  retry: RetryPolicy;
  fallbackModel?: string;
  now: () => number;
  random: () => number;
  sleep: (ms: number, signal: AbortSignal) => Promise<void>;
};

/**
 * One model call with retries. Yields the stream as it arrives and returns the assembled message.
 * Errors before any content are retried with backoff; after repeated overload the fallback model
 * takes over; a stream cut after content keeps that content instead of throwing it away.
 */
export async function* callModel(options: CallModelOptions): AsyncGenerator<CallModelEvent, CallModelResult> {
  const { client, signal, retry } = options;
  let model = options.request.model;
  let consecutiveOverloaded = 0;
  const startedAt = options.now();
  let firstTokenAt: number | null = null;
  const record = (attempts: number): ModelCallRecord => ({ model, startedAt, firstTokenAt, endedAt: options.now(), attempts });

  for (let attempt = 1; ; attempt++) {
    const accumulator = new MessageAccumulator();
    try {
      for await (const part of client.stream({ ...options.request, model }, { signal })) {
        if (firstTokenAt === null) firstTokenAt = options.now();
        accumulator.apply(part);
        const completed = part.type === "block-stop" ? accumulator.completedBlock(part.index) : undefined;
        yield completed ? { type: "part", messageId: accumulator.id, part, completed } : { type: "part", messageId: accumulator.id, part };
      }
      if (signal.aborted) throw new ModelError("aborted", "The request was aborted.");
      return { kind: "complete", message: accumulator.finish(), record: record(attempt) };
    } catch (caught) {
      const error = toModelError(caught, signal);
      if (error.code === "aborted") {
        return accumulator.hasContent()
          ? { kind: "cut", message: accumulator.partial(), error, record: record(attempt) }
          : { kind: "failed", error, record: record(attempt) };
      }
      if (accumulator.hasContent()) return { kind: "cut", message: accumulator.partial(), error, record: record(attempt) };
      if (accumulator.started) yield { type: "discard", messageId: accumulator.id, reason: error.message };
      if (!isRetryable(error) || attempt >= retry.maxAttempts) return { kind: "failed", error, record: record(attempt) };

      consecutiveOverloaded = error.code === "overloaded" ? consecutiveOverloaded + 1 : 0;
      if (options.fallbackModel && model !== options.fallbackModel && consecutiveOverloaded >= retry.overloadedBeforeFallback) {
        yield {
          type: "model-fallback",
          from: model,
          to: options.fallbackModel,
          reason: `${consecutiveOverloaded} overloaded errors in a row`,
        };
        model = options.fallbackModel;
        consecutiveOverloaded = 0;
      }
      const delayMs = retryDelayMs(attempt, error, retry, options.random);
      yield {
        type: "retry",
        attempt,
        maxAttempts: retry.maxAttempts,
        delayMs,
        status: error.status,
        errorCode: error.code,
        message: error.message,
      };
      try {
        await options.sleep(delayMs, signal);
      } catch {
        return { kind: "failed", error: new ModelError("aborted", "The request was aborted."), record: record(attempt) };
      }
    }
  }
}
