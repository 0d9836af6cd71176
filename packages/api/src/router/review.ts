import { z } from "zod";
import type { ApiContext, ReviewPort } from "./context.ts";
import { ApiError } from "./errors.ts";
import { procedure, router } from "./trpc.ts";

const sessionId = z.string().regex(/^[A-Za-z0-9_-]{1,128}$/, "not a session id");
/** A workspace-relative path as the Changes panel lists it. */
const relativePath = z
  .string()
  .min(1)
  .max(4096)
  .refine((path) => !path.startsWith("/") && !path.split("/").includes(".."), "must be a path inside the workspace");
const sha256 = z.string().regex(/^[0-9a-f]{64}$/);

function reviewOf(ctx: ApiContext): ReviewPort {
  if (!ctx.review) throw new ApiError("not_implemented", "The review workflow is not available on this server");
  return ctx.review;
}

export const changesRouter = router({
  /** Every file the session changed since its first checkpoint, with both versions and the hunks. */
  list: procedure.input(z.object({ sessionId })).query(({ ctx, input }) => reviewOf(ctx).changes(input.sessionId)),
  /** Puts the file back as it was when the session started; refused (file_conflict) when it changed since `expectedSha256`. */
  revertFile: procedure
    .input(z.object({ sessionId, path: relativePath, expectedSha256: sha256.nullable() }))
    .mutation(({ ctx, input }) => reviewOf(ctx).revertFile(input.sessionId, input.path, input.expectedSha256)),
  revertHunk: procedure
    .input(z.object({ sessionId, path: relativePath, hunkIndex: z.number().int().min(0).max(100_000), expectedSha256: sha256 }))
    .mutation(({ ctx, input }) => reviewOf(ctx).revertHunk(input.sessionId, input.path, input.hunkIndex, input.expectedSha256)),
});

export const reviewRouter = router({
  /** One user message listing every comment with its file:line, the code there and the text. */
  send: procedure
    .input(
      z.object({
        sessionId,
        comments: z
          .array(
            z.object({ path: relativePath, line: z.number().int().min(1).max(10_000_000), text: z.string().trim().min(1, "a comment needs text").max(20_000) }),
          )
          .min(1, "add a comment first")
          .max(200),
      }),
    )
    .mutation(({ ctx, input }) => reviewOf(ctx).sendReview(input.sessionId, input.comments)),
});
