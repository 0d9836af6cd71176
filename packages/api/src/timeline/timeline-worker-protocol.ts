import { z } from "zod";
import { ApiError, apiErrorCodes, type ApiErrorDetails } from "../router/errors.ts";
import type { TimelinePort } from "./timeline-port.ts";

/** The calls a timeline worker answers: the ones that read, build, page and search built timelines. */
export type TimelineWorkerMethod = "view" | "page" | "detail" | "search";

const requestSchema = z.discriminatedUnion("method", [
  z.object({ id: z.number(), method: z.literal("view"), sessionId: z.string(), knownVersion: z.string().optional() }),
  z.object({ id: z.number(), method: z.literal("page"), sessionId: z.string(), version: z.string(), from: z.number() }),
  z.object({ id: z.number(), method: z.literal("detail"), sessionId: z.string(), eventId: z.string() }),
  z.object({ id: z.number(), method: z.literal("search"), sessionId: z.string(), query: z.string() }),
]);
export type TimelineWorkerRequest = z.infer<typeof requestSchema>;

/** What the thread sends once its code is loaded (and warmed up, when it was started ahead): it carries no `id`. */
export const TIMELINE_THREAD_READY = { timelineThreadReady: true } as const;

/** Whether `message` is `TIMELINE_THREAD_READY`. */
export function isThreadReady(message: unknown): boolean {
  return typeof message === "object" && message !== null && (message as { timelineThreadReady?: unknown }).timelineThreadReady === true;
}

/** A failure as it crosses the thread: an ApiError keeps its code and details, anything else its message. */
export type WorkerFailure = { message: string; code?: string; details?: ApiErrorDetails };
export type TimelineWorkerResponse = { id: number; ok: true; value: unknown } | { id: number; ok: false; error: WorkerFailure };

/** The end of a message channel (a worker's `parentPort`, a `Worker`, a `MessagePort`). */
export type MessageEnd = {
  postMessage(message: unknown): void;
  on(event: "message", listener: (message: unknown) => void): unknown;
};

/**
 * The worker's side: each request answered from `service`, concurrently (a request waiting for a build does not
 * hold up the others). A message that is not a request is answered with an error when it carries an id.
 */
export function serveTimelineRequests(end: MessageEnd, service: Pick<TimelinePort, TimelineWorkerMethod>): void {
  end.on("message", (message) => {
    const parsed = requestSchema.safeParse(message);
    if (!parsed.success) {
      const id = (message as { id?: unknown } | null)?.id;
      if (typeof id === "number") end.postMessage({ id, ok: false, error: { message: `Not a timeline request: ${parsed.error.message}` } });
      return;
    }
    const request = parsed.data;
    answer(service, request).then(
      (value) => end.postMessage({ id: request.id, ok: true, value } satisfies TimelineWorkerResponse),
      (error: unknown) => end.postMessage({ id: request.id, ok: false, error: failureOf(error) } satisfies TimelineWorkerResponse),
    );
  });
}

function answer(service: Pick<TimelinePort, TimelineWorkerMethod>, request: TimelineWorkerRequest): Promise<unknown> {
  switch (request.method) {
    case "view":
      return service.view(request.sessionId, request.knownVersion);
    case "page":
      return service.page(request.sessionId, request.version, request.from);
    case "detail":
      return service.detail(request.sessionId, request.eventId);
    case "search":
      return service.search(request.sessionId, request.query);
  }
}

export function failureOf(error: unknown): WorkerFailure {
  if (error instanceof ApiError) return { message: error.message, code: error.code, details: error.details };
  return { message: error instanceof Error ? error.message : String(error) };
}

/** The failure back as an error on the calling thread: an ApiError again when it was one. */
export function errorOf(failure: WorkerFailure): Error {
  const code = apiErrorCodes.find((known) => known === failure.code);
  return code ? new ApiError(code, failure.message, failure.details ? { details: failure.details } : {}) : new Error(failure.message);
}
