import type { IncomingMessage, ServerResponse } from "node:http";
import { createHTTPHandler } from "@trpc/server/adapters/standalone";
import type { AccessDecision, AccessGuard } from "../auth/access-guard.ts";
import type { HostPolicy } from "../auth/host-policy.ts";
import type { SignInStreams } from "../auth/sign-in-streams.ts";
import type { ApiContext } from "../router/context.ts";
import { appRouter } from "../router/index.ts";
import { type ShareViewContext, shareViewRouter } from "../router/share-view.ts";
import { clientKey } from "../share/client-key.ts";
import { createNonce, passNonceToNext, pinHeaders, sharePageCsp, shareHeaders, shareRouteOf } from "../share/share-headers.ts";
import { RATE_LIMITED_PAGE, SHARE_EVENTS_PATH, shareTokenOf } from "../share/share-http.ts";
import type { ShareViewService } from "../share/share-view-service.ts";
import type { StreamAdmission } from "../share/stream-gate.ts";
import type { WebHandler } from "./next-handler.ts";
import { createSessionEventsRoute, SESSION_EVENTS_PATH } from "./session-events-route.ts";

const TRPC_PREFIX = "/api/trpc/";
const SHARE_API_PREFIX = "/api/share/";
/** The largest request: an uploaded Claude Code transcript (50 MB of JSONL) plus its JSON escaping. */
const MAX_BODY_BYTES = 80 * 1024 * 1024;
/** A share page path that is never a token: the web app's share page answers it with HTTP 404 and "not available". */
const DEAD_SHARE_PAGE = "/share/-";

type HttpHandler = (request: IncomingMessage, response: ServerResponse) => void;

export type Routes = {
  hosts: HostPolicy;
  guard: AccessGuard;
  trpc: HttpHandler;
  shareTrpc: HttpHandler;
  web: WebHandler | undefined;
  /** What `/share/<token>` shows: the share; for a dead one the page is asked for a path it answers with its 404; 429 when rate-limited. */
  sharePage: (token: string, client: string) => Promise<"available" | "not_found" | "rate_limited">;
  /** A place for one more live-share stream; undefined when the token opens no live share. */
  admitShareStream: (token: string, client: string) => Promise<StreamAdmission | undefined>;
  /** The streams signed-in browsers hold open, ended when the browser is signed out (and bearer streams, when the token is replaced). */
  signIns?: SignInStreams;
};

/**
 * The IDE router's subscriptions (`session.events`, `workspace.watch`, …): the requests that stay open. tRPC keeps
 * every procedure by its dotted path in `_def.procedures` (typed as the nested routers, hence the cast).
 */
const SUBSCRIPTIONS: ReadonlySet<string> = new Set(
  Object.entries(appRouter._def.procedures as unknown as Record<string, { _def: { type: string } }>).flatMap(([path, procedure]) =>
    procedure._def.type === "subscription" ? [path] : [],
  ),
);

/**
 * The two tRPC handlers: the IDE's router with the full context, and the read-only share router whose context holds the
 * share view alone. A subscription a signed-in browser opened gets the context with its `signedOut` signal.
 */
export function createTrpcHandlers(
  context: ApiContext,
  shareView: ShareViewService,
  signIns?: Pick<SignInStreams, "signalOf">,
): { trpc: HttpHandler; shareTrpc: HttpHandler } {
  const signedOutOf = (request: IncomingMessage) => signIns?.signalOf(request);
  const contextOf = (request: IncomingMessage): ApiContext => {
    const signedOut = signedOutOf(request);
    return signedOut ? { ...context, signedOut } : context;
  };
  const trpcHandler = createHTTPHandler({ router: appRouter, basePath: TRPC_PREFIX, createContext: ({ req }) => contextOf(req), maxBodySize: MAX_BODY_BYTES });
  const sessionEvents = createSessionEventsRoute(context, trpcHandler, signedOutOf);
  // The IDE's live event streams are written directly (session-events-route.ts); every other call goes to tRPC.
  const trpc: HttpHandler = (request, response) => (request.url?.startsWith(`${SESSION_EVENTS_PATH}?`) ? sessionEvents : trpcHandler)(request, response);
  const shareTrpc = createHTTPHandler({
    router: shareViewRouter,
    basePath: SHARE_API_PREFIX,
    createContext: ({ req }): ShareViewContext => ({ view: shareView, client: clientKey(req.socket.remoteAddress) }),
    maxBodySize: 64 * 1024,
  });
  return { trpc, shareTrpc };
}

/**
 * Routes one request once the server is ready: `/api/trpc/*` to the tRPC router, `/api/share/*` to the share router,
 * every other path to Next.js; nothing is served before the host and access checks pass.
 */
export function route(request: IncomingMessage, response: ServerResponse, routes: Routes): void {
  response.setHeader("Referrer-Policy", "no-referrer");
  response.setHeader("X-Content-Type-Options", "nosniff");
  if (!routes.hosts.allowsHost(request.headers.host)) {
    // DNS rebinding: a page under a foreign name that resolves here. Nothing is served to it, not even login.
    request.resume();
    response.writeHead(403, { "Content-Type": "text/plain; charset=utf-8", "Cache-Control": "no-store", Connection: "close" });
    response.end("403 Forbidden: this host name is not allowed; an administrator can add it with --allowed-host\n");
    return;
  }
  const shareRoute = shareRouteOf(request.url);
  if (shareRoute === "api" || shareRoute === "page") {
    const nonce = shareRoute === "page" ? createNonce() : undefined;
    pinHeaders(response, shareHeaders(shareRoute, nonce));
    if (nonce !== undefined) passNonceToNext(request, sharePageCsp(nonce));
  }
  // The sign-in store may be a database away (distributed mode): the check is awaited, the body waits unread meanwhile.
  routes.guard
    .check(request)
    .then(
      (decision) => {
        if (admitted(decision, response)) serve(request, response, routes, shareRoute, decision.kind === "allow" ? decision : undefined);
      },
      () => {
        // The database is away (it is retried by its client): say so without its details, the client tries again.
        request.resume();
        response.writeHead(503, { "Content-Type": "text/plain; charset=utf-8", "Cache-Control": "no-store", "Retry-After": "1" });
        response.end("503 Service Unavailable: the sign-in store did not answer; try again\n");
      },
    )
    .catch((error: unknown) => failed(response, error));
}

/** Answers a refused request (or sends the login redirect); true when the request goes on. */
function admitted(decision: AccessDecision, response: ServerResponse): boolean {
  switch (decision.kind) {
    case "login":
      response.writeHead(303, { Location: decision.location, "Set-Cookie": decision.setCookie, "Cache-Control": "no-store" });
      response.end();
      return false;
    case "unauthorized":
      response.writeHead(401, { "Content-Type": "text/plain; charset=utf-8", "Cache-Control": "no-store" });
      response.end(`401 Unauthorized: ${decision.reason}\n`);
      return false;
    case "forbidden":
      response.writeHead(403, { "Content-Type": "text/plain; charset=utf-8", "Cache-Control": "no-store" });
      response.end(`403 Forbidden: ${decision.reason}\n`);
      return false;
    case "allow":
      return true;
  }
}

/** An admitted request: the share API, the IDE's tRPC router, a share page or the web app. */
function serve(
  request: IncomingMessage,
  response: ServerResponse,
  routes: Routes,
  shareRoute: ReturnType<typeof shareRouteOf>,
  credential: { signIn?: { cookie: string }; bearer?: true } | undefined,
): void {
  const path = (request.url ?? "/").split("?")[0] ?? "/";
  if (shareRoute === "api") {
    routeShareApi(request, response, routes, path);
    return;
  }
  if (path.startsWith(TRPC_PREFIX)) {
    response.setHeader("Cache-Control", "no-store");
    if (credential && routes.signIns && request.method === "GET" && SUBSCRIPTIONS.has(path.slice(TRPC_PREFIX.length))) {
      if (credential.signIn) routes.signIns.watch(request, response, credential.signIn.cookie);
      else if (credential.bearer) routes.signIns.watchBearer(request);
    }
    // tRPC's non-batched JSON parser fails on an empty body (httpLink sends none for an undefined
    // input); every procedure that may omit its input accepts {}.
    if (request.method === "POST" && request.headers["content-length"] === "0") (request as IncomingMessage & { body?: string }).body = "{}";
    routes.trpc(request, response);
    return;
  }
  if (shareRoute === "page") {
    // The share store may be a database away (distributed mode): the lookup is awaited.
    routes.sharePage(path.slice("/share/".length), clientKey(request.socket.remoteAddress)).then(
      (state) => {
        if (state === "rate_limited") {
          response.writeHead(429, { "Content-Type": "text/html; charset=utf-8", "Retry-After": "60" });
          response.end(RATE_LIMITED_PAGE);
          return;
        }
        if (state === "not_found") request.url = DEAD_SHARE_PAGE;
        serveWeb(request, response, routes);
      },
      (error: unknown) => failed(response, error),
    );
    return;
  }
  serveWeb(request, response, routes);
}

function serveWeb(request: IncomingMessage, response: ServerResponse, routes: Routes): void {
  if (!routes.web) {
    response.writeHead(404, { "Content-Type": "text/plain; charset=utf-8" });
    response.end("404 Not Found: this server serves the API only\n");
    return;
  }
  routes.web.handle(request, response).catch((error: unknown) => failed(response, error));
}

function failed(response: ServerResponse, error: unknown): void {
  if (!response.headersSent) response.writeHead(500, { "Content-Type": "text/plain; charset=utf-8" });
  response.end(`500 Internal Server Error: ${(error as Error).message}\n`);
}

/** `/api/share/*`: read-only, and a live-share stream is admitted (or refused with 429) before tRPC sees it. */
function routeShareApi(request: IncomingMessage, response: ServerResponse, routes: Routes, path: string): void {
  // The share router has no mutation; refuse every other method before tRPC sees it.
  const method = (request.method ?? "GET").toUpperCase();
  if (method !== "GET" && method !== "HEAD") {
    // Drain the body: an unread body would otherwise break the next request on a kept-alive connection.
    request.resume();
    response.writeHead(405, { Allow: "GET, HEAD", "Content-Type": "text/plain; charset=utf-8", Connection: "close" });
    response.end("405 Method Not Allowed: share links are read-only\n");
    return;
  }
  if (path === SHARE_EVENTS_PATH) {
    // Admitted here, before tRPC: a subscription's own errors travel inside a 200 event stream.
    routes.admitShareStream(shareTokenOf(request.url), clientKey(request.socket.remoteAddress)).then(
      (admission) => {
        if (admission?.kind === "refused") {
          response.writeHead(429, { "Content-Type": "text/plain; charset=utf-8", "Retry-After": "60" });
          response.end(`429 Too Many Requests: ${admission.reason}\n`);
          return;
        }
        if (admission?.kind === "admitted") {
          // The client may have gone while the share was looked up.
          if (response.destroyed) {
            admission.release();
            return;
          }
          response.once("close", admission.release);
        }
        routes.shareTrpc(request, response);
      },
      (error: unknown) => failed(response, error),
    );
    return;
  }
  routes.shareTrpc(request, response);
}
