import type { ContentBlock } from "../schema/content.ts";
import type { ModelCallRecord } from "../schema/messages.ts";
import { MessageAccumulator, type AssembledMessage } from "./accumulator.ts";
import { toModelError } from "./anthropic-client.ts";
import { ModelError, type ModelClient, type ModelRequest, type ModelStreamPart } from "./port.ts";
import { isRetryable, retryDelayMs, type RetryPolicy } from "./retry.ts";

export type CallModelControl =
  | { type: "retry"; attempt: number; maxAttempts: number; delayMs: number; status: number | null; errorCode: string; message: string }
  | { type: "model-fallback"; from: string; to: string; reason: string }
  /** Deltas of a failed attempt were already shown; the UI must drop them. */
  | { type: "discard"; messageId: string; reason: string };

/** Stream parts pass through as they are; control events say what the retry logic did. */
export type CallModelEvent = ModelStreamPart | CallModelControl;

export type CallModelResult =
  | { kind: "complete"; message: AssembledMessage; record: ModelCallRecord }
  /** The stream broke after some content; what was whole is kept. */
  | { kind: "cut"; message: AssembledMessage; error: ModelError; record: ModelCallRecord }
  | { kind: "failed"; error: ModelError; record: ModelCallRecord };

export type CallModelOptions = {
  client: ModelClient;
  request: ModelRequest;
  /** The request for another model (the fallback); default: the same body with the model swapped. */
  requestFor?: (model: string) => ModelRequest;
  signal: AbortSignal;
  retry: RetryPolicy;
  fallbackModel?: string;
  now: () => number;
  random: () => number;
  sleep: (ms: number, signal: AbortSignal) => Promise<void>;
};

/**
 * One model call with retries: an async iterator of the stream as it arrives, finishing with the
 * assembled message. Errors before any content are retried with backoff (honouring `retry-after`);
 * after repeated overload the fallback model takes over; a stream cut after content keeps that
 * content instead of throwing it away. Hand-written rather than an async generator: it is on the
 * per-delta path.
 */
export class ModelCall implements AsyncIterator<CallModelEvent, CallModelResult>, AsyncIterable<CallModelEvent> {
  private readonly options: CallModelOptions;
  private model: string;
  private attempt = 0;
  private consecutiveOverloaded = 0;
  private readonly startedAt: number;
  private firstTokenAt: number | null = null;
  private parts: ReadAhead | null = null;
  private accumulator = new MessageAccumulator();
  private readonly pending: CallModelControl[] = [];
  private sleepMs: number | null = null;
  private result: CallModelResult | null = null;

  constructor(options: CallModelOptions) {
    this.options = options;
    this.model = options.request.model;
    this.startedAt = options.now();
  }

  [Symbol.asyncIterator](): this {
    return this;
  }

  /** The id of the response being streamed (empty before its `message-start`). */
  get messageId(): string {
    return this.accumulator.id;
  }

  /** A block of the current response once its `block-stop` arrived. */
  completedBlock(index: number): ContentBlock | undefined {
    return this.accumulator.completedBlock(index);
  }

  next(): Promise<IteratorResult<CallModelEvent, CallModelResult>> {
    // The per-delta path: a part already read ahead is handed over without another async step.
    if (this.parts !== null && this.pending.length === 0 && this.result === null) {
      const part = this.parts.takeBuffered();
      if (part) return Promise.resolve(this.deliver(part));
    }
    return this.step();
  }

  private deliver(part: ModelStreamPart): IteratorResult<CallModelEvent, CallModelResult> {
    if (this.firstTokenAt === null) this.firstTokenAt = this.options.now();
    this.accumulator.apply(part);
    return { done: false, value: part };
  }

  private async step(): Promise<IteratorResult<CallModelEvent, CallModelResult>> {
    while (true) {
      const control = this.pending.shift();
      if (control) return { done: false, value: control };
      if (this.result) return { done: true, value: this.result };
      if (this.parts === null) {
        if (this.sleepMs !== null) {
          const delay = this.sleepMs;
          this.sleepMs = null;
          try {
            await this.options.sleep(delay, this.options.signal);
          } catch {
            this.result = { kind: "failed", error: new ModelError("aborted", "The request was aborted."), record: this.record() };
            continue;
          }
        }
        this.attempt++;
        this.accumulator = new MessageAccumulator();
        const { request: first, requestFor } = this.options;
        const request = this.model === first.model ? first : requestFor ? requestFor(this.model) : { ...first, model: this.model };
        const { client, signal } = this.options;
        const batches = client.streamBatches ? client.streamBatches(request, { signal }) : oneByOne(client.stream(request, { signal }));
        this.parts = new ReadAhead(batches[Symbol.asyncIterator]());
      }
      let step: IteratorResult<ModelStreamPart>;
      try {
        step = await this.parts.next();
      } catch (caught) {
        this.parts = null;
        this.fail(toModelError(caught, this.options.signal));
        continue;
      }
      if (step.done) {
        this.parts = null;
        if (this.options.signal.aborted) this.fail(new ModelError("aborted", "The request was aborted."));
        else this.result = { kind: "complete", message: this.accumulator.finish(), record: this.record() };
        continue;
      }
      return this.deliver(step.value);
    }
  }

  async return(): Promise<IteratorResult<CallModelEvent, CallModelResult>> {
    await this.parts?.return();
    this.parts = null;
    this.result ??= { kind: "failed", error: new ModelError("aborted", "The request was abandoned."), record: this.record() };
    return { done: true, value: this.result };
  }

  private record(): ModelCallRecord {
    return { model: this.model, startedAt: this.startedAt, firstTokenAt: this.firstTokenAt, endedAt: this.options.now(), attempts: this.attempt };
  }

  private fail(error: ModelError): void {
    const { retry } = this.options;
    if (this.accumulator.hasContent()) {
      this.result = { kind: "cut", message: this.accumulator.partial(), error, record: this.record() };
      return;
    }
    if (error.code === "aborted") {
      this.result = { kind: "failed", error, record: this.record() };
      return;
    }
    if (this.accumulator.started) this.pending.push({ type: "discard", messageId: this.accumulator.id, reason: error.message });
    if (!isRetryable(error) || this.attempt >= retry.maxAttempts) {
      this.result = { kind: "failed", error, record: this.record() };
      return;
    }
    this.consecutiveOverloaded = error.code === "overloaded" ? this.consecutiveOverloaded + 1 : 0;
    const fallback = this.options.fallbackModel;
    if (fallback && this.model !== fallback && this.consecutiveOverloaded >= retry.overloadedBeforeFallback) {
      this.pending.push({ type: "model-fallback", from: this.model, to: fallback, reason: `${this.consecutiveOverloaded} overloaded errors in a row` });
      this.model = fallback;
      this.consecutiveOverloaded = 0;
    }
    const delayMs = retryDelayMs(this.attempt, error, retry, this.options.random);
    this.pending.push({
      type: "retry",
      attempt: this.attempt,
      maxAttempts: retry.maxAttempts,
      delayMs,
      status: error.status,
      errorCode: error.code,
      message: error.message,
    });
    this.sleepMs = delayMs;
  }
}

export function callModel(options: CallModelOptions): ModelCall {
  return new ModelCall(options);
}

const HIGH_WATER = 512;

/** A part stream as batches of one, for clients without `streamBatches`. */
function oneByOne(parts: AsyncIterable<ModelStreamPart>): AsyncIterable<readonly ModelStreamPart[]> {
  return {
    [Symbol.asyncIterator]() {
      const iterator = parts[Symbol.asyncIterator]();
      return {
        next: async () => {
          const step = await iterator.next();
          return step.done ? { done: true, value: undefined } : { done: false, value: [step.value] };
        },
        return: async () => {
          await iterator.return?.();
          return { done: true, value: undefined };
        },
      };
    },
  };
}

/**
 * Reads the response ahead of its consumer (up to HIGH_WATER parts) and hands consecutive deltas of
 * one block over as a single part. When the network outpaces the UI, many small deltas become one
 * event: the text is the same, the per-event cost is paid once. When the consumer keeps up, parts
 * pass one by one as they arrive.
 */
class ReadAhead {
  private readonly source: AsyncIterator<readonly ModelStreamPart[]>;
  private buffer: ModelStreamPart[] = [];
  private head = 0;
  private finished = false;
  private failure: { error: unknown } | null = null;
  private stopped = false;
  private wakeConsumer: (() => void) | null = null;
  private wakePump: (() => void) | null = null;

  constructor(source: AsyncIterator<readonly ModelStreamPart[]>) {
    this.source = source;
    void this.pump();
  }

  private async pump(): Promise<void> {
    try {
      while (!this.stopped) {
        if (this.buffer.length - this.head >= HIGH_WATER) {
          await new Promise<void>((resolve) => {
            this.wakePump = resolve;
          });
          continue;
        }
        const step = await this.source.next();
        if (step.done) break;
        for (const part of step.value) this.buffer.push(part);
        this.signalConsumer();
      }
    } catch (error) {
      this.failure = { error };
    } finally {
      this.finished = true;
      this.signalConsumer();
    }
  }

  private signalConsumer(): void {
    const wake = this.wakeConsumer;
    if (wake) {
      this.wakeConsumer = null;
      wake();
    }
  }

  async next(): Promise<IteratorResult<ModelStreamPart>> {
    while (this.head === this.buffer.length) {
      if (this.finished) {
        if (this.failure) throw this.failure.error;
        return { done: true, value: undefined };
      }
      await new Promise<void>((resolve) => {
        this.wakeConsumer = resolve;
      });
    }
    return { done: false, value: this.takeBuffered()! };
  }

  /** The next part if one was already read, without waiting. */
  takeBuffered(): ModelStreamPart | undefined {
    if (this.head === this.buffer.length) return undefined;
    const part = this.take();
    if (this.wakePump && this.buffer.length - this.head < HIGH_WATER / 2) {
      const wake = this.wakePump;
      this.wakePump = null;
      wake();
    }
    return part;
  }

  /** The next part, merged with the deltas right behind it that continue the same block. */
  private take(): ModelStreamPart {
    const first = this.buffer[this.head++]!;
    if (first.type !== "text-delta" && first.type !== "thinking-delta" && first.type !== "tool-input-delta") return this.compact(first);
    let end = this.head;
    while (end < this.buffer.length) {
      const next = this.buffer[end]!;
      if (next.type !== first.type || next.index !== first.index) break;
      end++;
    }
    if (end === this.head) return this.compact(first);
    const run = this.buffer.slice(this.head - 1, end);
    this.head = end;
    let merged: ModelStreamPart;
    switch (first.type) {
      case "text-delta":
        merged = { type: "text-delta", index: first.index, text: run.map((part) => (part as typeof first).text).join("") };
        break;
      case "thinking-delta":
        merged = { type: "thinking-delta", index: first.index, thinking: run.map((part) => (part as typeof first).thinking).join("") };
        break;
      case "tool-input-delta":
        merged = { type: "tool-input-delta", index: first.index, partialJson: run.map((part) => (part as typeof first).partialJson).join("") };
        break;
    }
    return this.compact(merged);
  }

  private compact(part: ModelStreamPart): ModelStreamPart {
    if (this.head > 4096 && this.head * 2 > this.buffer.length) {
      this.buffer = this.buffer.slice(this.head);
      this.head = 0;
    }
    return part;
  }

  /** Stops reading. Does not wait for the source: a stalled stream ends with its abort signal. */
  async return(): Promise<void> {
    this.stopped = true;
    this.wakePump?.();
    void this.source.return?.()?.catch(() => undefined);
  }
}
