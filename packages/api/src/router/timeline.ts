import { z } from "zod";
import { ApiError } from "./errors.ts";
import { procedure, router } from "./trpc.ts";
import { MAX_TRANSCRIPT_CHARS, type TimelinePort } from "../timeline/timeline-port.ts";

const sessionId = z.string().regex(/^[A-Za-z0-9_-]{1,128}$/, "not a session id");

function timelineOf(ctx: { timeline?: TimelinePort }): TimelinePort {
  if (!ctx.timeline) throw new ApiError("not_implemented", "This server has no timeline service");
  return ctx.timeline;
}

export const timelineRouter = router({
  /** A session's transcript lines and sidechains, for `buildTimeline` in the browser (the HTML export). */
  source: procedure.input(z.object({ sessionId })).query(({ ctx, input, signal }) => timelineOf(ctx).source(input.sessionId, signal)),
  /** The timeline built on the server, compact (no details), or `changed: false` when `knownVersion` is current. */
  view: procedure
    .input(z.object({ sessionId, knownVersion: z.string().max(10_000).optional() }))
    .query(({ ctx, input, signal }) => timelineOf(ctx).view(input.sessionId, input.knownVersion, signal)),
  /** A page of the events of a large timeline's `version`, from `from` on (after the first part `view` gave). */
  page: procedure
    .input(z.object({ sessionId, version: z.string().min(1).max(10_000), from: z.number().int().min(0) }))
    .query(({ ctx, input, signal }) => timelineOf(ctx).page(input.sessionId, input.version, input.from, signal)),
  /** One event's details, by its id. */
  detail: procedure.input(z.object({ sessionId, eventId: z.string().min(1).max(1_000) })).query(async ({ ctx, input, signal }) => {
    const found = await timelineOf(ctx).detail(input.sessionId, input.eventId, signal);
    if (!found) throw new ApiError("event_not_found", `No event ${input.eventId} in this session's timeline`);
    return found;
  }),
  /** The events whose search text matches `query` (case-insensitive, literal). */
  search: procedure
    .input(z.object({ sessionId, query: z.string().max(1_000) }))
    .query(({ ctx, input, signal }) => timelineOf(ctx).search(input.sessionId, input.query, signal)),
  /** A Claude Code transcript (JSONL text) imported as a new session; broken lines are counted in `report`. */
  importTranscript: procedure
    .input(z.object({ jsonl: z.string().min(1).max(MAX_TRANSCRIPT_CHARS), name: z.string().max(300).optional() }))
    .mutation(({ ctx, input, signal }) => timelineOf(ctx).importTranscript(input.jsonl, input.name, signal)),
});
