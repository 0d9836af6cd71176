import { z } from "zod";
import { permissionModeSchema } from "@cairn/core/schema";
import type { ApiContext, WorktreePort } from "./context.ts";
import { ApiError } from "./errors.ts";
import { procedure, router } from "./trpc.ts";

const sessionId = z.string().regex(/^[A-Za-z0-9_-]{1,128}$/, "not a session id");

function worktreesOf(ctx: ApiContext): WorktreePort {
  if (!ctx.worktrees) throw new ApiError("not_implemented", "Worktree sessions are not available on this server");
  return ctx.worktrees;
}

/** Sessions in git worktrees of their own: start one, see its branch, merge it back, discard it. */
export const worktreeRouter = router({
  /** A new session in a worktree and branch `cairn/<id>` from the workspace's current branch (`not_a_repository` outside git). */
  create: procedure
    .input(z.object({ model: z.string().min(1).max(200).optional(), permissionMode: permissionModeSchema.optional() }).optional())
    .mutation(({ ctx, input }) => worktreesOf(ctx).create(input ?? {})),
  /** The session's worktree, or null when it runs in the main checkout. */
  get: procedure.input(z.object({ sessionId })).query(({ ctx, input }) => worktreesOf(ctx).get(input.sessionId)),
  /** Commits the worktree's uncommitted work and merges its branch into the branch it came from; a conflict (`merge_conflict`) changes nothing. */
  merge: procedure.input(z.object({ sessionId })).mutation(({ ctx, input }) => worktreesOf(ctx).merge(input.sessionId)),
  /** Removes the worktree (uncommitted work included) and deletes its branch; the conversation stays readable. */
  discard: procedure.input(z.object({ sessionId })).mutation(({ ctx, input }) => worktreesOf(ctx).discard(input.sessionId)),
});
