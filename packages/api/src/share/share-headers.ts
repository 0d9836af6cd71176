import { randomBytes } from "node:crypto";
import type { IncomingMessage, OutgoingHttpHeaders, ServerResponse } from "node:http";

export const SHARE_PAGE_PREFIX = "/share/";
export const SHARE_API_PREFIX = "/api/share/";
/** The page's own built assets (scripts, styles, fonts) and the favicon a browser asks for: the same for every visitor, nothing private. */
export const STATIC_ASSET_PREFIX = "/_next/static/";

export type ShareRoute = "page" | "api" | "asset";

/**
 * Which unauthenticated route a request is for, if any. Only a path already in normal form counts
 * (no "..", ".", "//" or percent-encoded dots): `/share/../api/trpc/x` is not a share path, and
 * falls through to the access check like any other.
 */
export function shareRouteOf(rawUrl: string | undefined): ShareRoute | undefined {
  const raw = (rawUrl ?? "/").split(/[?#]/, 1)[0] ?? "/";
  if (/\/\/|%2e|%2f|%5c|\\/i.test(raw)) return undefined;
  let normal: string;
  try {
    normal = new URL(raw, "http://cairn.invalid").pathname;
  } catch {
    return undefined;
  }
  if (normal !== raw) return undefined;
  if (raw.startsWith(SHARE_API_PREFIX)) return "api";
  if (raw.startsWith(SHARE_PAGE_PREFIX)) return "page";
  if (raw.startsWith(STATIC_ASSET_PREFIX) || raw === "/favicon.ico") return "asset";
  return undefined;
}

export function createNonce(): string {
  return randomBytes(18).toString("base64");
}

/**
 * The share page's policy. Next.js's App Router bootstraps with inline scripts and then adds script
 * elements at run time, so 'self' alone cannot work; 'unsafe-inline' would let any injected script
 * run. A per-request nonce with 'strict-dynamic' is the strictest that works: Next reads the nonce
 * from this header on the request and stamps it on every script it renders, and scripts those load
 * are trusted in turn. Inline style attributes (React `style`) need 'unsafe-inline' in style-src.
 */
export function sharePageCsp(nonce: string): string {
  return [
    "default-src 'self'",
    `script-src 'self' 'nonce-${nonce}' 'strict-dynamic'`,
    "style-src 'self' 'unsafe-inline'",
    "img-src 'self' data:",
    "font-src 'self'",
    "connect-src 'self'",
    "worker-src 'self'",
    "object-src 'none'",
    "base-uri 'none'",
    "form-action 'self'",
    "frame-ancestors 'none'",
  ].join("; ");
}

/** JSON and SSE from the share router need no content at all. */
export const SHARE_API_CSP = "default-src 'none'; frame-ancestors 'none'";

export function shareHeaders(route: "page" | "api", nonce: string | undefined): Record<string, string> {
  return {
    "Referrer-Policy": "no-referrer",
    "X-Robots-Tag": "noindex, nofollow",
    "Cache-Control": "no-store",
    "X-Content-Type-Options": "nosniff",
    "X-Frame-Options": "DENY",
    "Content-Security-Policy": route === "page" && nonce !== undefined ? sharePageCsp(nonce) : SHARE_API_CSP,
  };
}

/**
 * Sets the headers and keeps them: whatever the handler after (Next.js) sets for the same names
 * through `setHeader` or `writeHead` is replaced by these values.
 */
export function pinHeaders(response: ServerResponse, headers: Record<string, string>): void {
  const pinned = new Map(Object.entries(headers).map(([name, value]) => [name.toLowerCase(), value]));
  for (const [name, value] of Object.entries(headers)) response.setHeader(name, value);
  const setHeader = response.setHeader.bind(response);
  response.setHeader = (name: string, value: number | string | readonly string[]) => {
    const keep = pinned.get(name.toLowerCase());
    return setHeader(name, keep ?? value);
  };
  const writeHead = response.writeHead.bind(response) as (status: number, ...rest: unknown[]) => ServerResponse;
  response.writeHead = ((status: number, ...rest: unknown[]) => {
    const args = rest.map((argument) =>
      argument !== null && typeof argument === "object" && !Array.isArray(argument) ? withPinned(argument as OutgoingHttpHeaders, pinned) : argument,
    );
    return writeHead(status, ...args);
  }) as ServerResponse["writeHead"];
}

function withPinned(headers: OutgoingHttpHeaders, pinned: Map<string, string>): OutgoingHttpHeaders {
  const out: OutgoingHttpHeaders = {};
  for (const [name, value] of Object.entries(headers)) out[name] = pinned.get(name.toLowerCase()) ?? value;
  return out;
}

/** Hands Next.js the nonce the way its middleware would: in the request's CSP header. */
export function passNonceToNext(request: IncomingMessage, csp: string): void {
  request.headers["content-security-policy"] = csp;
}
