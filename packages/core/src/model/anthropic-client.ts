// The base client without the resource classes (`messages`, `beta`, …): with the package's
// `sideEffects: false`, a bundle then leaves out most of the SDK, which `cairn -p` would load at start.
import { APIConnectionError, APIConnectionTimeoutError, APIError, APIUserAbortError, BaseAnthropic } from "@anthropic-ai/sdk";
import type { MessageCreateParamsStreaming } from "@anthropic-ai/sdk/resources/beta/messages";
import type { RawMessageStreamEvent } from "@anthropic-ai/sdk/resources/messages";
import { ModelError, type ModelClient, type ModelErrorCode, type ModelRequest, type ModelStreamPart } from "./port.ts";
import type { ContentBlock } from "../schema/content.ts";
import { SseDecoder } from "./sse.ts";

export type AnthropicClientOptions = {
  apiKey?: string | null;
  authToken?: string | null;
  baseURL?: string | null;
  /** Per-request timeout for the whole response. */
  timeoutMs?: number;
  fetch?: typeof fetch;
  defaultHeaders?: Record<string, string>;
};

/** The model port over the official SDK's raw stream. Retries are ours (`callModel`), so the SDK's are off. */
export function createAnthropicModelClient(options: AnthropicClientOptions): ModelClient {
  const client = new BaseAnthropic({
    apiKey: options.apiKey ?? null,
    authToken: options.authToken ?? null,
    ...(options.baseURL ? { baseURL: options.baseURL } : {}),
    maxRetries: 0,
    timeout: options.timeoutMs ?? 600_000,
    ...(options.fetch ? { fetch: options.fetch } : {}),
    ...(options.defaultHeaders ? { defaultHeaders: options.defaultHeaders } : {}),
  });
  return {
    stream: (request, { signal }) => ({ [Symbol.asyncIterator]: () => new SdkPartIterator(client, request, signal) }),
    streamBatches: (request, { signal }) => ({ [Symbol.asyncIterator]: () => new SdkBatchIterator(new SdkPartIterator(client, request, signal)) }),
  };
}

/**
 * The SDK makes the request (auth, headers, base URL, typed errors for non-2xx answers); the body is
 * then decoded here a network chunk at a time, so all the events one chunk carries are handed on
 * together instead of one await per event. Error events mid-stream become the SDK's own `APIError`,
 * exactly as its stream iterator would raise them.
 */
class SdkPartIterator implements AsyncIterator<ModelStreamPart> {
  private reader: BodyChunks | null = null;
  private headers: Headers | undefined;
  private requestId: string | undefined;
  private readonly decoder = new SseDecoder();
  private queue: ModelStreamPart[] = [];
  private head = 0;
  private ended = false;
  /** An error event, raised once the parts that came before it in the same chunk are handed on. */
  private failure: ModelError | null = null;
  private readonly client: BaseAnthropic;
  private readonly request: ModelRequest;
  private readonly signal: AbortSignal;
  /**
   * The SDK adds an abort listener to the signal of every request and never removes it; given the
   * session's signal, a long session would pile up one listener per request. It gets a signal of its
   * own per request instead, linked to the caller's until the stream is over.
   */
  private readonly requestAbort = new AbortController();
  private readonly forwardAbort = () => this.requestAbort.abort(this.signal.reason);

  constructor(client: BaseAnthropic, request: ModelRequest, signal: AbortSignal) {
    this.client = client;
    this.request = request;
    this.signal = signal;
    if (signal.aborted) this.requestAbort.abort(signal.reason);
    else signal.addEventListener("abort", this.forwardAbort, { once: true });
  }

  async next(): Promise<IteratorResult<ModelStreamPart>> {
    try {
      return await this.nextPart();
    } catch (error) {
      this.unlink();
      throw error;
    }
  }

  /** Every part the next network chunk completes (at least one), or null at the end. */
  async nextBatch(): Promise<ModelStreamPart[] | null> {
    try {
      const first = await this.nextPart();
      if (first.done) return null;
      const batch = this.head === this.queue.length ? [first.value] : [first.value, ...this.queue.slice(this.head)];
      this.head = this.queue.length;
      return batch;
    } catch (error) {
      this.unlink();
      throw error;
    }
  }

  private unlink(): void {
    this.signal.removeEventListener("abort", this.forwardAbort);
  }

  private async nextPart(): Promise<IteratorResult<ModelStreamPart>> {
    while (this.head === this.queue.length) {
      if (this.failure) throw this.failure;
      if (this.ended) {
        this.unlink();
        return { done: true, value: undefined };
      }
      if (this.reader === null) await this.open();
      this.queue = [];
      this.head = 0;
      let chunk: Awaited<ReturnType<ReadableStreamDefaultReader<Uint8Array>["read"]>>;
      try {
        chunk = await this.reader!.read();
      } catch (error) {
        throw toModelError(error, this.signal);
      }
      const messages = chunk.done ? this.decoder.end() : this.decoder.push(chunk.value);
      if (chunk.done) this.ended = true;
      for (const message of messages) {
        this.accept(message.event, message.data);
        if (this.failure) break;
      }
    }
    return { done: false, value: this.queue[this.head++]! };
  }

  async return(): Promise<IteratorResult<ModelStreamPart>> {
    this.ended = true;
    this.unlink();
    await this.reader?.cancel().catch(() => undefined);
    return { done: true, value: undefined };
  }

  private accept(event: string | null, data: string): void {
    if (event === null || event === "ping" || !data) return;
    if (event === "error") {
      let body: unknown = data;
      try {
        body = JSON.parse(data);
      } catch {
        // keep the raw text
      }
      const type = (body as { error?: { type?: string } } | undefined)?.error?.type;
      this.failure = toModelError(new APIError(undefined, body as object, undefined, this.headers, type as never), this.signal);
      return;
    }
    let parsed: RawMessageStreamEvent;
    try {
      parsed = JSON.parse(data) as RawMessageStreamEvent;
    } catch (cause) {
      throw new ModelError("stream_error", `The model stream sent an event that is not JSON: ${data.slice(0, 200)}`, { cause });
    }
    const part = toStreamPart(parsed, this.requestId);
    if (part) this.queue.push(part);
  }

  private async open(): Promise<void> {
    const { betas, ...body } = this.request;
    let response: Response;
    try {
      // What `beta.messages.create` sends for a streamed request (betas as the `anthropic-beta` header,
      // beta fields such as `output_config.task_budget` in the body), without its resource class.
      const streamed = { ...body, stream: true } as MessageCreateParamsStreaming;
      response = await this.client
        .post("/v1/messages", {
          body: streamed,
          stream: true,
          signal: this.requestAbort.signal,
          ...(betas?.length ? { headers: { "anthropic-beta": betas.join(",") } } : {}),
        })
        .asResponse();
    } catch (error) {
      throw toModelError(error, this.signal);
    }
    const reader = bodyChunksOf(response);
    if (!reader) throw new ModelError("stream_error", "The model API answered without a body.");
    this.headers = response.headers;
    this.requestId = response.headers.get("request-id") ?? undefined;
    this.reader = reader;
  }
}

/** How the response's body is read: a web stream's reader, or what `bodyReader()` gives. */
type BodyChunks = Pick<ReadableStreamDefaultReader<Uint8Array>, "read" | "cancel">;

/**
 * The body's chunks: a response from Cairn's `httpFetch` hands them over without the web stream (`bodyReader()`,
 * several microseconds of CPU less per streamed event); any other through its body's reader.
 */
function bodyChunksOf(response: Response): BodyChunks | null {
  const own = (response as { bodyReader?: () => BodyChunks | null }).bodyReader;
  return typeof own === "function" ? own.call(response) : (response.body?.getReader() ?? null);
}

class SdkBatchIterator implements AsyncIterator<readonly ModelStreamPart[]> {
  private readonly parts: SdkPartIterator;

  constructor(parts: SdkPartIterator) {
    this.parts = parts;
  }

  async next(): Promise<IteratorResult<readonly ModelStreamPart[]>> {
    const batch = await this.parts.nextBatch();
    return batch === null ? { done: true, value: undefined } : { done: false, value: batch };
  }

  async return(): Promise<IteratorResult<readonly ModelStreamPart[]>> {
    await this.parts.return();
    return { done: true, value: undefined };
  }
}

function toStreamPart(event: RawMessageStreamEvent, requestId: string | undefined): ModelStreamPart | null {
  switch (event.type) {
    case "message_start":
      return {
        type: "message-start",
        id: event.message.id,
        model: event.message.model,
        usage: event.message.usage as never,
        ...(requestId ? { requestId } : {}),
      };
    case "content_block_start":
      return { type: "block-start", index: event.index, block: event.content_block as ContentBlock };
    case "content_block_delta": {
      const delta = event.delta;
      switch (delta.type) {
        case "text_delta":
          return { type: "text-delta", index: event.index, text: delta.text };
        case "thinking_delta":
          return { type: "thinking-delta", index: event.index, thinking: delta.thinking };
        case "signature_delta":
          return { type: "signature-delta", index: event.index, signature: delta.signature };
        case "input_json_delta":
          return { type: "tool-input-delta", index: event.index, partialJson: delta.partial_json };
        default:
          return null;
      }
    }
    case "content_block_stop":
      return { type: "block-stop", index: event.index };
    case "message_delta":
      return {
        type: "message-delta",
        stopReason: event.delta.stop_reason ?? null,
        stopSequence: event.delta.stop_sequence ?? null,
        usage: event.usage as never,
      };
    case "message_stop":
      return { type: "message-stop" };
    default:
      return null;
  }
}

/** Maps the SDK's error classes and statuses onto transport facts. */
export function toModelError(error: unknown, signal?: AbortSignal): ModelError {
  if (error instanceof ModelError) return error;
  if (signal?.aborted || error instanceof APIUserAbortError) {
    return new ModelError("aborted", "The request was aborted.", { cause: error });
  }
  if (error instanceof APIConnectionTimeoutError) {
    return new ModelError("timeout", "The model request timed out.", { cause: error });
  }
  if (error instanceof APIConnectionError) {
    return new ModelError("connection", `Could not reach the model API: ${error.message}`, { cause: error });
  }
  if (error instanceof APIError) {
    const status = typeof error.status === "number" ? error.status : null;
    const code = classifyApiError(status, error.type ?? null, error.errorCode, error.apiMessage ?? error.message);
    return new ModelError(code, error.apiMessage ?? error.message, {
      status,
      retryAfterMs: parseRetryAfter(error.headers),
      requestId: error.requestID ?? null,
      cause: error,
    });
  }
  const message = error instanceof Error ? error.message : String(error);
  // A socket that dies mid-body surfaces as a bare TypeError ("terminated") from fetch.
  return new ModelError("connection", `The model stream broke: ${message}`, { cause: error });
}

function classifyApiError(status: number | null, type: string | null, errorCode: string | null, message: string): ModelErrorCode {
  if (status === 529 || type === "overloaded_error") return "overloaded";
  if (status === 429 || type === "rate_limit_error") return "rate_limited";
  if (status === 401 || type === "authentication_error") return "authentication";
  if (status === 403 || type === "permission_error") return "permission";
  if (status === 404 || type === "not_found_error") return "not_found";
  if (status === 413 || errorCode === "prompt_too_long" || /prompt is too long/i.test(message)) return "prompt_too_long";
  if (status !== null && status >= 500) return "server_error";
  if (type === "api_error") return "server_error";
  if (status === 400 || type === "invalid_request_error") return "invalid_request";
  return status === null ? "stream_error" : "unknown";
}

function parseRetryAfter(headers: Headers | undefined): number | null {
  if (!headers) return null;
  const ms = headers.get("retry-after-ms");
  if (ms && Number.isFinite(Number(ms))) return Number(ms);
  const value = headers.get("retry-after");
  if (!value) return null;
  const seconds = Number(value);
  if (Number.isFinite(seconds)) return seconds * 1000;
  const date = Date.parse(value);
  return Number.isNaN(date) ? null : Math.max(0, date - Date.now());
}
