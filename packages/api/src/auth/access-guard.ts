import type { IncomingMessage } from "node:http";
import { tokensEqual } from "./access-token.ts";
import { shareRouteOf } from "../share/share-headers.ts";

/** What to do with a request before it reaches tRPC or Next. */
export type AccessDecision =
  | { kind: "allow" }
  /** `?token=` was right: set the cookie and send the browser to the same URL without it. */
  | { kind: "login"; location: string; setCookie: string }
  | { kind: "unauthorized"; reason: string }
  | { kind: "forbidden"; reason: string };

const SAFE_METHODS = new Set(["GET", "HEAD", "OPTIONS"]);
const SAFE_READS = new Set(["GET", "HEAD"]);

/**
 * Jupyter-style access: the token from the printed URL becomes an HttpOnly, SameSite=Strict cookie;
 * scripts may send `Authorization: Bearer <token>` instead. Requests that change state and ride on
 * the cookie must come from this origin (`Origin` / `Sec-Fetch-Site`): a cross-site form or fetch is
 * refused even if a browser attached the cookie. Cookie names carry the port, because cookies are
 * shared by every port of a host.
 */
export class AccessGuard {
  readonly cookieName: string;
  private readonly token: string;

  constructor(options: { token: string; port: number }) {
    this.token = options.token;
    this.cookieName = `cairn_token_${options.port}`;
  }

  check(request: IncomingMessage): AccessDecision {
    // Share pages, the read-only share router and the page assets they load: the link's token is the
    // capability, checked by the share router on every read. Pages and assets only for reading: a POST
    // to a page path could reach Next.js server actions.
    const shareRoute = shareRouteOf(request.url);
    if (shareRoute === "api" || (shareRoute !== undefined && SAFE_READS.has((request.method ?? "GET").toUpperCase()))) return { kind: "allow" };
    const url = new URL(request.url ?? "/", "http://cairn.invalid");
    const queryToken = url.searchParams.get("token");
    if (queryToken !== null) {
      if (!tokensEqual(queryToken, this.token)) return { kind: "unauthorized", reason: "The token in the link is not this server's token." };
      url.searchParams.delete("token");
      const location = `${url.pathname}${url.search}${url.hash}`;
      return {
        kind: "login",
        location,
        setCookie: `${this.cookieName}=${this.token}; Path=/; HttpOnly; SameSite=Strict`,
      };
    }

    const bearer = bearerToken(request.headers.authorization);
    if (bearer !== undefined) {
      if (!tokensEqual(bearer, this.token)) return { kind: "unauthorized", reason: "The bearer token is not this server's token." };
      // A page on another site cannot make a browser send this header without a CORS preflight, which is never granted.
      return { kind: "allow" };
    }

    const cookie = readCookie(request.headers.cookie, this.cookieName);
    if (cookie === undefined) return { kind: "unauthorized", reason: "Open the link that `cairn serve` printed (it carries ?token=…)." };
    if (!tokensEqual(cookie, this.token)) return { kind: "unauthorized", reason: "The access cookie is not this server's token; open the printed link again." };

    const method = (request.method ?? "GET").toUpperCase();
    if (!SAFE_METHODS.has(method)) {
      const problem = crossSiteProblem(request);
      if (problem) return { kind: "forbidden", reason: problem };
    }
    return { kind: "allow" };
  }
}

/** Why a state-changing cookie request does not look same-origin, or undefined when it does. */
function crossSiteProblem(request: IncomingMessage): string | undefined {
  const fetchSite = request.headers["sec-fetch-site"];
  const origin = request.headers.origin;
  if (fetchSite === undefined && origin === undefined) return "A state-changing request must carry Origin or Sec-Fetch-Site (or use Authorization: Bearer).";
  if (fetchSite !== undefined && fetchSite !== "same-origin" && fetchSite !== "none") return `Cross-site request refused (Sec-Fetch-Site: ${fetchSite}).`;
  if (origin !== undefined) {
    const host = request.headers.host;
    // https when a TLS proxy fronts the server.
    if (host === undefined || (origin !== `http://${host}` && origin !== `https://${host}`)) return `Cross-origin request refused (Origin: ${origin}).`;
  }
  return undefined;
}

function bearerToken(header: string | undefined): string | undefined {
  if (header === undefined) return undefined;
  const match = /^Bearer\s+(\S+)\s*$/i.exec(header);
  return match?.[1];
}

function readCookie(header: string | undefined, name: string): string | undefined {
  if (header === undefined) return undefined;
  for (const part of header.split(";")) {
    const index = part.indexOf("=");
    if (index < 0) continue;
    if (part.slice(0, index).trim() === name) return part.slice(index + 1).trim();
  }
  return undefined;
}
