import type { IncomingMessage, ServerResponse } from "node:http";
import { getErrorShape, getTRPCErrorFromUnknown } from "@trpc/server";
import type { ApiContext } from "../router/context.ts";
import { afterSeq, appRouter, sessionEventsInput } from "../router/index.ts";
import { SSE_OPTIONS } from "../router/trpc.ts";
import { type BatchedEventSource, EventStreamResponse, TurnFrameCache } from "./event-stream-response.ts";
import { signedOutError } from "../router/signed-in-stream.ts";

type HttpHandler = (request: IncomingMessage, response: ServerResponse) => void;

export const SESSION_EVENTS_PATH = "/api/trpc/session.events";
const PROCEDURE_PATH = "session.events";

/**
 * `GET /api/trpc/session.events?input=…`, the IDE's live event stream, written by `EventStreamResponse` instead
 * of tRPC's stream machinery (async generators, web streams and one socket write per event, which at 100
 * sessions cost more than everything else the server does). The wire format is tRPC's, so
 * `httpSubscriptionLink` with `tracked()` ids and `lastEventId` reads it unchanged. Anything else goes to tRPC
 * itself, which answers it exactly as before: another method, other query parameters, an input the procedure
 * would refuse, or a session that cannot be opened (tRPC then reports the same failure in its own format).
 * The access check has already passed (request-router.ts).
 */
export function createSessionEventsRoute(
  context: ApiContext,
  trpc: HttpHandler,
  signedOutOf: (request: IncomingMessage) => AbortSignal | undefined = () => undefined,
): HttpHandler {
  const config = appRouter._def._config;
  const serialize = (value: unknown): unknown => config.transformer.output.serialize(value);
  const deserialize = (value: unknown): unknown => config.transformer.input.deserialize(value);
  // tRPC's default transformer hands values over as they are (superjson, say, would wrap them).
  const probe = {};
  const serializeKeepsValues = serialize(probe) === probe;
  // A session's tabs are sent the same bus entries: each is serialized once for all of them.
  const frameCache = new TurnFrameCache();
  return (request, response) => {
    const input = request.method === "GET" ? parseInput(request, deserialize) : undefined;
    if (!input) {
      trpc(request, response);
      return;
    }
    context.sessions.eventFeed(input.sessionId, afterSeq(input.lastEventId)).then(
      (feed) => {
        const signedOut = signedOutOf(request);
        new EventStreamResponse({
          response,
          source: signedOut ? untilSignedOut(feed, signedOut) : feed,
          client: SSE_OPTIONS.client,
          pingIntervalMs: SSE_OPTIONS.ping.intervalMs,
          serialize,
          serializeKeepsValues,
          frameCache,
          errorShape: (error) =>
            getErrorShape({ config, error: getTRPCErrorFromUnknown(error), type: "subscription", path: PROCEDURE_PATH, input, ctx: context }),
        }).start();
      },
      () => {
        if (!response.destroyed) trpc(request, response);
      },
    );
  };
}

/**
 * What tRPC reads from a subscription's URL: the input, a `lastEventId` that replaces the input's, and the
 * `connectionParams` the IDE sends its browser key in (checked by the access guard; the context ignores it).
 */
const QUERY_KEYS = new Set(["input", "lastEventId", "Last-Event-Id", "connectionParams"]);

/**
 * The input as tRPC would give it to the procedure (a `Last-Event-ID` header, or a `lastEventId` query
 * parameter, replaces the input's own, as EventSource reconnects send it), when the procedure would accept
 * it; otherwise undefined.
 */
function parseInput(request: IncomingMessage, deserialize: (value: unknown) => unknown) {
  const query = new URL(request.url ?? "/", "http://localhost").searchParams;
  const raw = query.get("input");
  if (raw === null || [...query.keys()].some((key) => !QUERY_KEYS.has(key))) return undefined;
  const connectionParams = query.get("connectionParams");
  if (connectionParams !== null && !tRpcAcceptsConnectionParams(connectionParams)) return undefined;
  let input: unknown;
  try {
    input = deserialize(JSON.parse(raw));
  } catch {
    return undefined;
  }
  const header = request.headers["last-event-id"];
  const lastEventId = (typeof header === "string" ? header : undefined) ?? query.get("lastEventId") ?? query.get("Last-Event-Id");
  if (lastEventId && typeof input === "object" && input !== null && !Array.isArray(input)) input = { ...input, lastEventId };
  const parsed = sessionEventsInput.safeParse(input);
  return parsed.success ? parsed.data : undefined;
}

/** tRPC refuses connection params that are not JSON null or an object of strings. */
function tRpcAcceptsConnectionParams(text: string): boolean {
  try {
    const params: unknown = JSON.parse(text);
    if (params === null) return true;
    return typeof params === "object" && !Array.isArray(params) && Object.values(params).every((value) => typeof value === "string");
  } catch {
    return false;
  }
}

/** The feed, until the browser that opened the stream is signed out: then its next read fails with UNAUTHORIZED, which ends the response. */
function untilSignedOut(feed: BatchedEventSource, signedOut: AbortSignal): BatchedEventSource {
  return {
    listen(onPublished) {
      const unlisten = feed.listen(onPublished);
      signedOut.addEventListener("abort", onPublished);
      return () => {
        unlisten();
        signedOut.removeEventListener("abort", onPublished);
      };
    },
    take() {
      if (signedOut.aborted) return Promise.reject(signedOutError(signedOut));
      return feed.take();
    },
  };
}
