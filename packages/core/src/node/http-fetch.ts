import { request as httpRequest, type ClientRequest, type IncomingMessage, type RequestOptions } from "node:http";
import type { Socket } from "node:net";
import { Readable } from "node:stream";
import { FetchHeaders } from "./http-fetch-headers.ts";
import { HttpFetchResponse } from "./http-fetch-response.ts";

/** As Node's fetch (undici): a connection (TCP and TLS) not made within 10 s fails; so does a socket idle for 300 s. */
const CONNECT_TIMEOUT_MS = 10_000;
const IDLE_TIMEOUT_MS = 300_000;
const MAX_REDIRECTS = 20;
const REDIRECT_STATUSES = new Set([301, 302, 303, 307, 308]);
/** Headers a redirect to another origin does not carry along (fetch's rule, as Node's fetch applies it). */
const CROSS_ORIGIN_DROPPED = ["authorization", "proxy-authorization", "cookie", "host"];

type FetchInput = string | URL | { url: string };
type BodyInit = NonNullable<RequestInit["body"]>;
type Body = { bytes: Buffer } | { stream: AsyncIterable<Uint8Array> } | null;

/**
 * `fetch` over `node:http` and `node:https`, for the model client of `cairn -p`: Node's own fetch is undici, whose
 * loading (with http2, tls, zlib and its WebAssembly HTTP parser) is the largest cost before a one-shot run's first
 * request. Keeps what the Anthropic SDK relies on: streamed bodies as web streams, abort through the signal (an
 * `AbortError`, as fetch raises), failures as `TypeError("fetch failed")` with the cause, redirects followed as fetch
 * follows them, keep-alive through Node's global agents, gzip/deflate/br bodies decoded. `https:` loads `node:https`
 * when first used. Not supported (a TypeError): other schemes, `formData()` bodies.
 */
export async function httpFetch(input: FetchInput, init: RequestInit = {}): Promise<Response> {
  const signal = init.signal ?? undefined;
  if (signal?.aborted) throw abortReason(signal);
  let url = new URL(typeof input === "string" ? input : input instanceof URL ? input.href : input.url);
  let method = normalizeMethod(init.method ?? "GET");
  const headers = new FetchHeaders(init.headers);
  let body = requestBody(init.body ?? null, headers);
  if (!headers.has("accept")) headers.set("accept", "*/*");
  for (let redirects = 0; ; redirects++) {
    const message = await send(url, method, headers, body, signal);
    const location = message.headers.location;
    if (REDIRECT_STATUSES.has(message.statusCode ?? 0) && location !== undefined && init.redirect !== "manual") {
      message.resume();
      if (init.redirect === "error") throw fetchFailed(new Error(`redirect to ${location} refused (redirect: "error")`));
      if (redirects === MAX_REDIRECTS) throw fetchFailed(new Error("redirect count exceeded"));
      const next = new URL(location, url);
      if (next.protocol !== "http:" && next.protocol !== "https:") throw fetchFailed(new Error(`redirect to an unsupported URL: ${next.href}`));
      if ("stream" in (body ?? {}) && message.statusCode !== 303) throw fetchFailed(new Error("cannot follow a redirect with a streamed request body"));
      if (message.statusCode === 303 ? method !== "HEAD" : (message.statusCode === 301 || message.statusCode === 302) && method === "POST") {
        method = "GET";
        body = null;
        for (const name of ["content-type", "content-length", "content-encoding", "content-language", "content-location"]) headers.delete(name);
      }
      if (next.origin !== url.origin) for (const name of CROSS_ORIGIN_DROPPED) headers.delete(name);
      url = next;
      continue;
    }
    const href = url.href.replace(/#.*$/, "");
    return HttpFetchResponse.fromMessage(message, await decodedContent(message, method), { url: href, redirected: redirects > 0, method, signal });
  }
}

function send(url: URL, method: string, headers: FetchHeaders, body: Body, signal: AbortSignal | undefined): Promise<IncomingMessage> {
  return new Promise((resolve, reject) => {
    const options: RequestOptions = { method, headers: Object.fromEntries(headerLines(headers)), timeout: IDLE_TIMEOUT_MS };
    let request: ClientRequest;
    try {
      request = requestFor(url)(url, options);
    } catch (error) {
      reject(error instanceof TypeError ? error : fetchFailed(error));
      return;
    }
    const onAbort = () => request.destroy(abortReason(signal!));
    signal?.addEventListener("abort", onAbort, { once: true });
    const unlink = () => signal?.removeEventListener("abort", onAbort);
    request.once("socket", (socket: Socket) => connectTimeout(request, socket, url));
    request.once("timeout", () => request.destroy(new Error(`no data from ${url.host} for ${IDLE_TIMEOUT_MS / 1000} s`)));
    request.once("error", (error: Error) => {
      unlink();
      reject(signal?.aborted ? abortReason(signal) : fetchFailed(error));
    });
    request.once("response", (message: IncomingMessage) => {
      // The abort keeps working while the body is read: it ends the body's stream with the AbortError.
      message.once("close", unlink);
      if (signal) {
        const abortBody = () => message.destroy(abortReason(signal));
        signal.addEventListener("abort", abortBody, { once: true });
        message.once("close", () => signal.removeEventListener("abort", abortBody));
      }
      resolve(message);
    });
    if (body === null) request.end();
    else if ("bytes" in body) request.end(body.bytes);
    else
      Readable.from(body.stream)
        .once("error", (error: Error) => request.destroy(error))
        .pipe(request);
  });
}

/** `http.request`, or `https.request` (loaded on first use: TLS is not loaded for a plain-HTTP endpoint). */
function requestFor(url: URL): (url: URL, options: RequestOptions) => ClientRequest {
  if (url.protocol === "http:") return httpRequest;
  if (url.protocol === "https:") return (target, options) => loadHttps().request(target, options);
  throw new TypeError(`fetch failed: unsupported URL scheme ${url.protocol}`);
}

function loadHttps(): typeof import("node:https") {
  // A synchronous, deferred load: process.getBuiltinModule is Node >= 20.16 (package.json's engines ask for 20.19).
  return process.getBuiltinModule("node:https");
}

/** A connection not established (and for HTTPS, secured) in time fails as Node's fetch fails it: a connect timeout. */
function connectTimeout(request: ClientRequest, socket: Socket, url: URL): void {
  if (!socket.connecting) return;
  const timer = setTimeout(() => {
    const error = new Error(`Connect Timeout Error (attempted address: ${url.host}, timeout: ${CONNECT_TIMEOUT_MS}ms)`);
    error.name = "ConnectTimeoutError";
    request.destroy(error);
  }, CONNECT_TIMEOUT_MS);
  const clear = () => clearTimeout(timer);
  socket.once(url.protocol === "https:" ? "secureConnect" : "connect", clear);
  socket.once("close", clear);
}

/** Header lines as sent: lowercased names, `set-cookie` values apart, others joined (FetchHeaders' own rules). */
function* headerLines(headers: FetchHeaders): Generator<[string, string | string[]]> {
  const cookies = headers.getSetCookie();
  for (const [name, value] of headers) if (name !== "set-cookie") yield [name, value];
  if (cookies.length > 0) yield ["set-cookie", cookies];
}

/** The body to send, with the content type fetch gives each kind of body when the caller set none. */
function requestBody(body: BodyInit | null, headers: FetchHeaders): Body {
  const contentType = (type: string) => {
    if (!headers.has("content-type")) headers.set("content-type", type);
  };
  if (body === null) return null;
  if (typeof body === "string") {
    contentType("text/plain;charset=UTF-8");
    return { bytes: Buffer.from(body, "utf8") };
  }
  if (body instanceof URLSearchParams) {
    contentType("application/x-www-form-urlencoded;charset=UTF-8");
    return { bytes: Buffer.from(body.toString(), "utf8") };
  }
  if (body instanceof ArrayBuffer) return { bytes: Buffer.from(body) };
  if (ArrayBuffer.isView(body)) return { bytes: Buffer.from(body.buffer, body.byteOffset, body.byteLength) };
  if (typeof body === "object" && Symbol.asyncIterator in body) return { stream: body as AsyncIterable<Uint8Array> };
  throw new TypeError("fetch: this kind of request body is not supported by Cairn's HTTP client (a string, bytes, URLSearchParams or a stream are)");
}

/** The body as the server encoded it, decoded (zlib loads only for an encoded body). */
async function decodedContent(message: IncomingMessage, method: string): Promise<Readable> {
  const encoding = message.headers["content-encoding"]?.trim().toLowerCase();
  if (!encoding || encoding === "identity" || method === "HEAD" || message.statusCode === 204 || message.statusCode === 304) return message;
  const zlib = process.getBuiltinModule("node:zlib");
  // Lenient as browsers are: a body cut short at the end still yields what it had.
  const flush = { flush: zlib.constants.Z_SYNC_FLUSH, finishFlush: zlib.constants.Z_SYNC_FLUSH };
  const decoder =
    encoding === "gzip" || encoding === "x-gzip"
      ? zlib.createGunzip(flush)
      : encoding === "deflate"
        ? zlib.createInflate(flush)
        : encoding === "br"
          ? zlib.createBrotliDecompress({ flush: zlib.constants.BROTLI_OPERATION_FLUSH, finishFlush: zlib.constants.BROTLI_OPERATION_FLUSH })
          : null;
  if (decoder === null) return message;
  message.once("error", (error: Error) => decoder.destroy(error));
  message.once("close", () => {
    if (!message.complete && !decoder.destroyed) decoder.destroy(new Error("the connection closed before the response's end"));
  });
  return message.pipe(decoder);
}

/** Standard methods are uppercased (`post` -> `POST`), others sent as given, as fetch does. */
function normalizeMethod(method: string): string {
  const upper = method.toUpperCase();
  return ["DELETE", "GET", "HEAD", "OPTIONS", "POST", "PUT"].includes(upper) ? upper : method;
}

/** What an aborted fetch rejects with, as fetch does: the signal's reason (by default an `AbortError`). */
function abortReason(signal: AbortSignal): Error {
  const reason: unknown = signal.reason;
  return reason instanceof Error ? reason : new DOMException(reason === undefined ? "This operation was aborted" : String(reason), "AbortError");
}

function fetchFailed(cause: unknown): TypeError {
  return new TypeError("fetch failed", { cause });
}
