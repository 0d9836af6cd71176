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
  /** A session's transcript lines and sidechains, for `buildTimeline` in the browser. */
  source: procedure.input(z.object({ sessionId })).query(({ ctx, input, signal }) => timelineOf(ctx).source(input.sessionId, signal)),
  /** A Claude Code transcript (JSONL text) imported as a new session; broken lines are counted in `report`. */
  importTranscript: procedure
    .input(z.object({ jsonl: z.string().min(1).max(MAX_TRANSCRIPT_CHARS), name: z.string().max(300).optional() }))
    .mutation(({ ctx, input, signal }) => timelineOf(ctx).importTranscript(input.jsonl, input.name, signal)),
});
