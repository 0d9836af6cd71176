import type { IncomingMessage } from "node:http";
import type { Readable } from "node:stream";
import { bodyStreamOver, MessageBodyReader } from "./http-fetch-body.ts";
import { FetchHeaders } from "./http-fetch-headers.ts";

/** Statuses whose response has no body, whatever the server sends (fetch's "null body status"). */
const NULL_BODY_STATUSES = new Set([101, 103, 204, 205, 304]);

/**
 * The `Response` `httpFetch` resolves with: status, headers and the body as a web `ReadableStream` of `Uint8Array`
 * chunks, read from the socket as the reader asks for them (the message pauses while 64 KiB wait to be read); and
 * `bodyReader()`, the same chunks without the web stream (see `MessageBodyReader`), which the model client takes. A
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
  /** What `body` reads from, until a clone's tee reads it instead. */
  #reader: MessageBodyReader | null;

  constructor(parts: {
    status: number;
    statusText: string;
    headers: Headers;
    url: string;
    redirected: boolean;
    body: ReadableStream<Uint8Array<ArrayBuffer>> | null;
    reader?: MessageBodyReader;
  }) {
    this.status = parts.status;
    this.statusText = parts.statusText;
    this.headers = parts.headers;
    this.url = parts.url;
    this.redirected = parts.redirected;
    this.body = parts.body;
    this.#reader = parts.reader ?? null;
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
    const reader = empty ? undefined : new MessageBodyReader(content, details.signal);
    return new HttpFetchResponse({
      status,
      statusText: message.statusMessage ?? "",
      headers,
      url: details.url,
      redirected: details.redirected,
      body: reader ? bodyStreamOver(reader) : null,
      ...(reader ? { reader } : {}),
    });
  }

  /**
   * The body's chunks for one reader, as `body.getReader()` gives them but without the web stream's machinery; null
   * without a body. Takes the body: `body` is locked from then on.
   */
  bodyReader(): Pick<ReadableStreamDefaultReader<Uint8Array<ArrayBuffer>>, "read" | "cancel"> | null {
    if (this.body === null) return null;
    if (this.bodyUsed || this.body.locked) throw new TypeError("Body is unusable: Body has already been read");
    const webReader = this.body.getReader();
    if (this.#reader === null) return webReader;
    // Whoever holds the reader holds the body too (see MessageBodyReader.heldBody).
    this.#reader.heldBody = this.body;
    return this.#reader;
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
    this.#reader = null;
    return new HttpFetchResponse({ ...parts, body: theirs });
  }
}
