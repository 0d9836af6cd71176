import { z } from "zod";
import { ShareError } from "../share/share-errors.ts";
import { shareModeSchema } from "../share/share-records.ts";
import { DEFAULT_SHARE_DAYS, MAX_SHARE_DAYS } from "../share/share-service.ts";
import { procedure, router } from "./trpc.ts";

const sessionId = z.string().regex(/^[A-Za-z0-9_-]{1,128}$/, "not a session id");
const messageUuid = z.string().min(1).max(200);
const shareId = z.string().min(1).max(100);
/** Any string: a malformed token is answered like an unknown one. */
const token = z.string().max(16_384);

/** Share errors become tRPC errors (NOT_FOUND, TOO_MANY_REQUESTS, BAD_REQUEST). */
async function shareCall<T>(call: () => Promise<T>): Promise<T> {
  try {
    return await call();
  } catch (error) {
    if (error instanceof ShareError) throw error.toTRPCError();
    throw error;
  }
}

/** The owner's share links (authenticated, mounted as `share`). */
export const shareRouter = router({
  /** What a share of the session would show that the redactor replaces, before anything is published. */
  preview: procedure
    .input(z.object({ sessionId, mode: shareModeSchema, messageUuid: messageUuid.optional() }))
    .query(({ ctx, input }) => shareCall(() => ctx.shares.preview(input))),
  /** The token is in the answer once and never again; snapshots pin the given message or the last one. */
  create: procedure
    .input(
      z.object({
        sessionId,
        mode: shareModeSchema,
        expiresInDays: z.number().int().min(1).max(MAX_SHARE_DAYS).default(DEFAULT_SHARE_DAYS),
        messageUuid: messageUuid.optional(),
      }),
    )
    .mutation(({ ctx, input }) => shareCall(() => ctx.shares.create(input))),
  list: procedure.query(({ ctx }) => shareCall(() => ctx.shares.list())),
  /** A new token for the same share; the old one stops working at once (open streams end). */
  rotate: procedure.input(z.object({ shareId })).mutation(({ ctx, input }) => shareCall(() => ctx.shares.rotate(input.shareId))),
  revoke: procedure.input(z.object({ shareId })).mutation(({ ctx, input }) => shareCall(() => ctx.shares.revoke(input.shareId))),
  /** "Continue as a copy": forks the shared conversation into a new session of this workspace. */
  fork: procedure
    .input(z.object({ token, messageUuid: messageUuid.optional() }))
    .mutation(({ ctx, input }) => shareCall(() => ctx.shares.fork(input.token, input.messageUuid))),
});
