import type { IncomingMessage } from "node:http";
import type { Readable } from "node:stream";
import { FetchHeaders } from "./http-fetch-headers.ts";

/** Statuses whose response has no body, whatever the server sends (fetch's "null body status"). */
const NULL_BODY_STATUSES = new Set([101, 103, 204, 205, 304]);

/**
 * The `Response` `httpFetch` resolves with: status, headers and the body as a web `ReadableStream` of `Uint8Array`
 * chunks, read from the socket as the reader asks for them (the message pauses while the stream holds 64 KiB). A
 * connection that closes before the body's end errors the stream with `TypeError("terminated")`, as Node's fetch does;
 * an abort errors it with the abort's `AbortError`.
 */
export class HttpFetchResponse implements Response {
  readonly status: number;
  readonly statusText: string;
  readonly headers: Headers;
  readonly url: string;
  readonly redirected: boolean;
  readonly type: Response["type"] = "basic";
  body: ReadableStream<Uint8Array<ArrayBuffer>> | null;
  #disturbed = false;

  constructor(parts: {
    status: number;
    statusText: string;
    headers: Headers;
    url: string;
    redirected: boolean;
    body: ReadableStream<Uint8Array<ArrayBuffer>> | null;
  }) {
    this.status = parts.status;
    this.statusText = parts.statusText;
    this.headers = parts.headers;
    this.url = parts.url;
    this.redirected = parts.redirected;
    this.body = parts.body;
  }

  /** The response to `message`, its body read from `content` (the message itself, or its decompressed stream). */
  static fromMessage(
    message: IncomingMessage,
    content: Readable,
    details: { url: string; redirected: boolean; method: string; signal: AbortSignal | undefined },
  ): HttpFetchResponse {
    const status = message.statusCode ?? 0;
    const headers = new FetchHeaders();
    const raw = message.rawHeaders;
    for (let index = 0; index + 1 < raw.length; index += 2) headers.append(raw[index]!, raw[index + 1]!);
    const empty = details.method === "HEAD" || NULL_BODY_STATUSES.has(status);
    if (empty) content.destroy();
    return new HttpFetchResponse({
      status,
      statusText: message.statusMessage ?? "",
      headers,
      url: details.url,
      redirected: details.redirected,
      body: empty ? null : bodyStream(content, details.signal),
    });
  }

  get ok(): boolean {
    return this.status >= 200 && this.status <= 299;
  }

  /** Read through `bytes()` and the like, or cancelled. A reader's reads show as `body.locked` instead. */
  get bodyUsed(): boolean {
    return this.#disturbed;
  }

  async bytes(): Promise<Uint8Array<ArrayBuffer>> {
    if (this.bodyUsed || this.body?.locked) throw new TypeError("Body is unusable: Body has already been read");
    this.#disturbed = true;
    if (this.body === null) return new Uint8Array(0);
    const chunks: Uint8Array[] = [];
    let length = 0;
    for await (const chunk of this.body) {
      chunks.push(chunk);
      length += chunk.byteLength;
    }
    const bytes = new Uint8Array(length);
    let offset = 0;
    for (const chunk of chunks) {
      bytes.set(chunk, offset);
      offset += chunk.byteLength;
    }
    return bytes;
  }

  async arrayBuffer(): Promise<ArrayBuffer> {
    return (await this.bytes()).buffer;
  }

  async text(): Promise<string> {
    return new TextDecoder().decode(await this.bytes());
  }

  async json(): Promise<unknown> {
    return JSON.parse(await this.text());
  }

  async blob(): Promise<Blob> {
    const type = this.headers.get("content-type");
    return new Blob([await this.bytes()], type === null ? {} : { type });
  }

  async formData(): Promise<FormData> {
    throw new TypeError("Response.formData() is not supported by Cairn's HTTP client");
  }

  clone(): Response {
    if (this.bodyUsed || this.body?.locked) throw new TypeError("Response.clone: Body has already been consumed.");
    const parts = { status: this.status, statusText: this.statusText, headers: new FetchHeaders(this.headers), url: this.url, redirected: this.redirected };
    if (this.body === null) return new HttpFetchResponse({ ...parts, body: null });
    const [mine, theirs] = this.body.tee();
    this.body = mine;
    return new HttpFetchResponse({ ...parts, body: theirs });
  }
}

/**
 * Bytes the body's stream holds before the socket is paused. With the web stream's default (one chunk), every chunk
 * that arrived while the reader was busy paused the message and the next read resumed it on the next tick: a streamed
 * model response, one small event per chunk, paid that pause and resume for most of its events.
 */
const BODY_HIGH_WATER_BYTES = 64 * 1024;

function bodyStream(content: Readable, signal: AbortSignal | undefined): ReadableStream<Uint8Array<ArrayBuffer>> {
  let settled = false;
  return new ReadableStream<Uint8Array<ArrayBuffer>>(
    {
      start(controller) {
        content.on("data", (chunk: Buffer) => {
          controller.enqueue(new Uint8Array(chunk.buffer as ArrayBuffer, chunk.byteOffset, chunk.byteLength));
          if ((controller.desiredSize ?? 0) <= 0) content.pause();
        });
        content.once("end", () => {
          if (settled) return;
          settled = true;
          controller.close();
        });
        content.once("error", (error: Error) => {
          if (settled) return;
          settled = true;
          controller.error(signal?.aborted ? error : new TypeError("terminated", { cause: error }));
        });
        content.once("close", () => {
          if (settled) return;
          settled = true;
          controller.error(new TypeError("terminated", { cause: new Error("the connection closed before the response's end") }));
        });
      },
      pull() {
        content.resume();
      },
      cancel() {
        settled = true;
        content.destroy();
      },
    },
    { highWaterMark: BODY_HIGH_WATER_BYTES, size: (chunk) => chunk.byteLength },
  );
}
