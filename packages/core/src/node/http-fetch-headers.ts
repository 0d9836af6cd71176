/**
 * The WHATWG `Headers` class, written for `httpFetch` (http-fetch.ts). Node's own `Headers` is undici's: touching the
 * global loads all of undici (with http2, tls and zlib), which is most of what `cairn -p` spends before its first
 * request. Names are case-insensitive and listed lowercased and sorted; values are trimmed and joined with ", ", except
 * `set-cookie`, whose values stay apart (`getSetCookie`). Invalid names and values are a TypeError, as in Node.
 */
type HeadersInit = ConstructorParameters<typeof Headers>[0];

export class FetchHeaders implements Headers {
  /** Lowercased name -> its values in the order they were appended. */
  readonly #values = new Map<string, string[]>();

  constructor(init?: HeadersInit | Iterable<readonly [string, string]> | null) {
    if (init === undefined || init === null) return;
    if (typeof init !== "object") throw new TypeError("Headers: the init must be an object, a sequence of pairs or a Headers");
    if (Symbol.iterator in init) {
      for (const pair of init as Iterable<readonly string[]>) {
        if (pair.length !== 2) throw new TypeError("Headers: each header must be a [name, value] pair");
        this.append(pair[0]!, pair[1]!);
      }
      return;
    }
    for (const name of Object.keys(init)) this.append(name, (init as Record<string, string>)[name]!);
  }

  get [Symbol.toStringTag](): string {
    return "Headers";
  }

  append(name: string, value: string): void {
    const key = headerName(name);
    const normalized = headerValue(value);
    const values = this.#values.get(key);
    if (values) values.push(normalized);
    else this.#values.set(key, [normalized]);
  }

  set(name: string, value: string): void {
    this.#values.set(headerName(name), [headerValue(value)]);
  }

  delete(name: string): void {
    this.#values.delete(headerName(name));
  }

  get(name: string): string | null {
    return this.#values.get(headerName(name))?.join(", ") ?? null;
  }

  has(name: string): boolean {
    return this.#values.has(headerName(name));
  }

  getSetCookie(): string[] {
    return [...(this.#values.get("set-cookie") ?? [])];
  }

  forEach(callback: (value: string, key: string, parent: Headers) => void, thisArg?: unknown): void {
    for (const [name, value] of this.entries()) callback.call(thisArg, value, name, this);
  }

  *entries(): Generator<[string, string]> {
    for (const name of [...this.#values.keys()].sort()) {
      const values = this.#values.get(name);
      if (values === undefined) continue;
      if (name === "set-cookie") for (const value of values) yield [name, value];
      else yield [name, values.join(", ")];
    }
  }

  *keys(): Generator<string> {
    for (const [name] of this.entries()) yield name;
  }

  *values(): Generator<string> {
    for (const [, value] of this.entries()) yield value;
  }

  [Symbol.iterator](): Generator<[string, string]> {
    return this.entries();
  }
}

/** A header name is an HTTP token (RFC 9110 §5.6.2). */
const TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;

function headerName(name: string): string {
  const text = String(name);
  if (!TOKEN.test(text)) throw new TypeError(`Headers: invalid header name ${JSON.stringify(text)}`);
  return text.toLowerCase();
}

/** Leading and trailing tabs, spaces, CR and LF go; a NUL, CR or LF left inside is invalid. */
function headerValue(value: string): string {
  const text = String(value).replace(/^[\t\n\r ]+|[\t\n\r ]+$/g, "");
  if (/[\0\r\n]/.test(text)) throw new TypeError(`Headers: invalid header value ${JSON.stringify(text)}`);
  return text;
}
