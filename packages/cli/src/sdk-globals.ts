// The web globals the Anthropic SDK names, as the CLI bundle hands them to the SDK's modules (build.mjs's
// `sdkGlobals`): Node's `Headers` and `FormData` are undici's, and the first touch of either loads all of undici (with
// http2, tls and zlib), the largest cost before `cairn -p`'s first request. Its model requests go through `httpFetch`
// (over node:http), so nothing else on that path needs undici.
import { FetchHeaders } from "@cairn/core/fetch-headers";

/**
 * Cairn's own `Headers` class. `instanceof` also holds for Node's (undici's) `Headers`, so the SDK reads the headers
 * of a response from Node's fetch (`cairn serve`) as it reads any `Headers`, through `entries()` and `get()`.
 */
export class Headers extends FetchHeaders {
  static override [Symbol.hasInstance](value: unknown): boolean {
    return value instanceof FetchHeaders || Object.prototype.toString.call(value) === "[object Headers]";
  }
}

/** Node's own `FormData`, loaded only when a form is built or a value claims to be one (file uploads). */
function LazyFormData(...args: ConstructorParameters<typeof globalThis.FormData>): globalThis.FormData {
  return new globalThis.FormData(...args);
}
Object.defineProperty(LazyFormData, Symbol.hasInstance, {
  value: (value: unknown) => Object.prototype.toString.call(value) === "[object FormData]" && value instanceof globalThis.FormData,
});
export { LazyFormData as FormData };
