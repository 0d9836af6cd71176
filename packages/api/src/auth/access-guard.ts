import type { IncomingMessage } from "node:http";
import { z } from "zod";
import { shareRouteOf } from "../share/share-headers.ts";
import { TOKEN_REPLACED_MESSAGE, tokensEqual } from "./access-token.ts";
import type { BrowserSessionRepository } from "./browser-session-secrets.ts";
import type { HostPolicy } from "./host-policy.ts";

/** What to do with a request before it reaches tRPC or Next. */
export type AccessDecision =
  /**
   * `signIn`: the request rides on a browser's sign-in (its cookie), so a stream it opens ends when that browser is signed
   * out; `bearer`: on the access token, so a stream it opens ends when the token is replaced.
   */
  | { kind: "allow"; signIn?: { cookie: string }; bearer?: true }
  /** `?token=` was right: set the session cookie and send the browser to the same URL without it, the key in the fragment. */
  | { kind: "login"; location: string; setCookie: string }
  | { kind: "unauthorized"; reason: string }
  | { kind: "forbidden"; reason: string };

/** The header the IDE sends its browser key in; subscriptions (EventSource) carry it in tRPC's `connectionParams`. */
const BROWSER_KEY_HEADER = "x-cairn-key";
const BROWSER_KEY_PARAM = "cairnKey";
/** The URL fragment the login redirect hands the key over in (a fragment never reaches a server). */
const BROWSER_KEY_FRAGMENT = "cairn-key";
const connectionParamsSchema = z.object({ [BROWSER_KEY_PARAM]: z.string() });

const SAFE_METHODS = new Set(["GET", "HEAD", "OPTIONS"]);
const SAFE_READS = new Set(["GET", "HEAD"]);
const API_PREFIX = "/api/";

type AccessGuardOptions = {
  token: string;
  port: number;
  sessions: Pick<BrowserSessionRepository, "create" | "check">;
  /**
   * The sign-in cookie's name. Default `cairn_session_<port>` (servers on other ports of the host keep theirs);
   * distributed nodes share one name for the cluster, since behind a load balancer their own ports differ.
   */
  cookieName?: string;
  /** The origins a cookie-borne change may come from. */
  hosts: Pick<HostPolicy, "allowsOrigin">;
  /** Aborted once the cluster's token changed (distributed mode): from then on this node refuses `token` everywhere. */
  tokenReplaced?: AbortSignal;
  now?: () => number;
};

/**
 * Access to everything but share links. The printed `?token=` link signs a browser in: the server creates a
 * browser session and answers with an HttpOnly, SameSite=Strict, host-only cookie holding the session's
 * cookie secret (never the access token) and a redirect whose fragment hands the page the session's key,
 * which the page keeps in its origin's localStorage and sends as a header. Browsers send cookies to every
 * port of a host; the key stays with the origin, so the cookie alone opens nothing but the page shell.
 * Scripts send `Authorization: Bearer <access token>` instead. Requests that change state and ride on the
 * cookie must come from this origin as well.
 */
export class AccessGuard {
  readonly cookieName: string;
  private readonly options: AccessGuardOptions;
  private readonly now: () => number;

  constructor(options: AccessGuardOptions) {
    this.options = options;
    this.now = options.now ?? Date.now;
    this.cookieName = options.cookieName ?? `cairn_session_${options.port}`;
  }

  async check(request: IncomingMessage): Promise<AccessDecision> {
    // Share pages, the read-only share router and the page assets they load: the link's token is the
    // capability, checked by the share router on every read. Pages and assets only for reading: a POST
    // to a page path could reach Next.js server actions.
    const method = (request.method ?? "GET").toUpperCase();
    const shareRoute = shareRouteOf(request.url);
    if (shareRoute === "api" || (shareRoute !== undefined && SAFE_READS.has(method))) return { kind: "allow" };
    const url = new URL(request.url ?? "/", "http://cairn.invalid");
    const queryToken = url.searchParams.get("token");
    if (queryToken !== null) return this.login(url, queryToken);

    const bearer = bearerToken(request.headers.authorization);
    if (bearer !== undefined) {
      if (!tokensEqual(bearer, this.options.token)) return { kind: "unauthorized", reason: "The bearer token is not this server's token." };
      if (this.options.tokenReplaced?.aborted) return { kind: "unauthorized", reason: TOKEN_REPLACED_MESSAGE };
      // A page on another site cannot make a browser send this header without a CORS preflight, which is never granted.
      return { kind: "allow", bearer: true };
    }

    const cookie = readCookie(request.headers.cookie, this.cookieName);
    if (cookie === undefined) return { kind: "unauthorized", reason: "Open the link that `cairn serve` printed (it carries ?token=…)." };
    // Page loads cannot carry a header: the cookie alone opens the page shell, never the API or a change.
    const needsKey = url.pathname.startsWith(API_PREFIX) || !SAFE_READS.has(method);
    const key = needsKey ? (browserKey(request, url) ?? "") : undefined;
    const session = await this.options.sessions.check(cookie, key);
    if (session.kind === "unknown")
      return { kind: "unauthorized", reason: "This browser's sign-in has expired or was signed out; open the printed link again." };
    if (session.kind === "key_mismatch") return { kind: "unauthorized", reason: "This request lacks the page's browser key; open the printed link again." };

    if (!SAFE_METHODS.has(method)) {
      const problem = crossSiteProblem(request, this.options.hosts);
      if (problem) return { kind: "forbidden", reason: problem };
    }
    return { kind: "allow", signIn: { cookie } };
  }

  private async login(url: URL, queryToken: string): Promise<AccessDecision> {
    if (!tokensEqual(queryToken, this.options.token)) return { kind: "unauthorized", reason: "The token in the link is not this server's token." };
    if (this.options.tokenReplaced?.aborted) return { kind: "unauthorized", reason: TOKEN_REPLACED_MESSAGE };
    const session = await this.options.sessions.create();
    url.searchParams.delete("token");
    const maxAge = Math.max(0, Math.ceil((session.expiresAt - this.now()) / 1000));
    return {
      kind: "login",
      location: `${url.pathname}${url.search}#${BROWSER_KEY_FRAGMENT}=${session.key}`,
      // Host-only (no Domain) and HttpOnly; not `__Host-`: that prefix needs Secure, which plain http on a loopback
      // address or a LAN name cannot set, and it would not keep the cookie from other ports either.
      setCookie: `${this.cookieName}=${session.cookie}; Path=/; Max-Age=${maxAge}; HttpOnly; SameSite=Strict`,
    };
  }
}

/** Why a state-changing cookie request does not look same-origin, or undefined when it does. */
function crossSiteProblem(request: IncomingMessage, hosts: Pick<HostPolicy, "allowsOrigin">): string | undefined {
  const fetchSite = request.headers["sec-fetch-site"];
  const origin = request.headers.origin;
  if (fetchSite === undefined && origin === undefined) return "A state-changing request must carry Origin or Sec-Fetch-Site (or use Authorization: Bearer).";
  if (fetchSite !== undefined && fetchSite !== "same-origin" && fetchSite !== "none") return `Cross-site request refused (Sec-Fetch-Site: ${fetchSite}).`;
  // Compared with the server's own origins, never with the request's Host (a rebinding page sets both).
  if (origin !== undefined && !hosts.allowsOrigin(origin)) return `Cross-origin request refused (Origin: ${origin}).`;
  return undefined;
}

/** The browser key from the header, or from the `connectionParams` an SSE subscription carries in its URL. */
function browserKey(request: IncomingMessage, url: URL): string | undefined {
  const header = request.headers[BROWSER_KEY_HEADER];
  if (typeof header === "string") return header;
  const params = url.searchParams.get("connectionParams");
  if (params === null) return undefined;
  try {
    return connectionParamsSchema.safeParse(JSON.parse(params)).data?.[BROWSER_KEY_PARAM];
  } catch {
    return undefined;
  }
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
