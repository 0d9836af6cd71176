import { initTRPC, tracked, TRPCError } from "@trpc/server";
import { z } from "zod";
import { ShareError } from "../share/share-errors.ts";
import type { ShareViewPort } from "../share/share-types.ts";

/**
 * The share page's router, served at `/api/share/` without the access cookie. Read-only by
 * construction: queries and one subscription, and a context that holds nothing but the share view
 * port and the caller's address — no sessions hub, workspace, settings or terminals to reach.
 */
export type ShareViewContext = { view: ShareViewPort; client: string };

const t = initTRPC.context<ShareViewContext>().create({
  // Never stack traces to anonymous viewers, whatever NODE_ENV says.
  isDev: false,
  sse: {
    ping: { enabled: true, intervalMs: 2_000 },
    client: { reconnectAfterInactivityMs: 5_000 },
  },
});

/** Share errors keep their code and message; anything else reaches an anonymous viewer as a bare 500. */
const procedure = t.procedure.use(async ({ next }) => {
  const result = await next();
  if (result.ok) return result;
  if (result.error.cause instanceof ShareError) throw result.error.cause.toTRPCError();
  if (result.error.code === "INTERNAL_SERVER_ERROR") throw new TRPCError({ code: "INTERNAL_SERVER_ERROR", message: "The share could not be read" });
  return result;
});

/** Any string: a malformed token gets the same NOT_FOUND as an unknown one. */
const token = z.string().max(16_384);
const lastEventId = z
  .string()
  .regex(/^\d{1,15}$/)
  .nullish();
const neverAborted = new AbortController().signal;

const view = t.router({
  /** The shared conversation (redacted). Counts a view. */
  session: procedure.input(z.object({ token })).query(({ ctx, input }) => ctx.view.session(input.token, ctx.client)),
  /** What the timeline draws, redacted. */
  timelineSource: procedure.input(z.object({ token })).query(({ ctx, input }) => ctx.view.timelineSource(input.token, ctx.client)),
  /**
   * Live shares: the session's events, redacted, as `tracked(String(seq), event)` like `session.events`.
   * Ends with NOT_FOUND as soon as the share is revoked, rotated or expires.
   */
  events: procedure.input(z.object({ token, lastEventId })).subscription(async function* ({ ctx, input, signal }) {
    const abort = signal ?? neverAborted;
    try {
      for await (const { seq, event } of ctx.view.events(input.token, ctx.client, input.lastEventId ? Number(input.lastEventId) : 0, abort)) {
        yield tracked(String(seq), event);
      }
    } catch (error) {
      if (signal?.aborted) return;
      if (error instanceof ShareError) throw error.toTRPCError();
      if (error instanceof TRPCError && error.code !== "INTERNAL_SERVER_ERROR") throw error;
      throw new TRPCError({ code: "INTERNAL_SERVER_ERROR", message: "The share could not be read" });
    }
  }),
});

export const shareViewRouter = t.router({ view });
export type ShareViewRouter = typeof shareViewRouter;
