import { z } from "zod";
import type { ApiContext, GitPort } from "./context.ts";
import { ApiError } from "./errors.ts";
import { procedure, router } from "./trpc.ts";

const relativePath = z
  .string()
  .min(1)
  .max(4096)
  .refine((path) => !path.startsWith("/") && !path.split("/").includes(".."), "must be a path inside the workspace");
const paths = z.array(relativePath).min(1).max(10_000);
const branchName = z.string().max(250);
/** Given a worktree session, the procedures work on its worktree's repository; otherwise on the workspace's. */
const session = {
  sessionId: z
    .string()
    .regex(/^[A-Za-z0-9_-]{1,128}$/, "not a session id")
    .optional(),
};
const sessionInput = z.object(session).optional();

async function gitOf(ctx: ApiContext, sessionId?: string): Promise<GitPort> {
  const worktree = sessionId === undefined ? undefined : await ctx.worktrees?.git(sessionId);
  if (worktree) return worktree;
  if (!ctx.git) throw new ApiError("not_implemented", "Git is not available on this server");
  return ctx.git;
}

/** The workspace's git repository: status, stage, commit (message drafted by the model on request), branches, push, init. */
export const gitRouter = router({
  status: procedure.input(sessionInput).query(async ({ ctx, input }) => (await gitOf(ctx, input?.sessionId)).status()),
  branches: procedure.input(sessionInput).query(async ({ ctx, input }) => (await gitOf(ctx, input?.sessionId)).branches()),
  /** Always the workspace's own repository (a worktree is in one already). */
  init: procedure.mutation(async ({ ctx }) => {
    await (await gitOf(ctx)).init();
    return { ok: true };
  }),
  stage: procedure.input(z.object({ paths, ...session })).mutation(async ({ ctx, input }) => {
    await (await gitOf(ctx, input.sessionId)).stage(input.paths);
    return { ok: true };
  }),
  unstage: procedure.input(z.object({ paths, ...session })).mutation(async ({ ctx, input }) => {
    await (await gitOf(ctx, input.sessionId)).unstage(input.paths);
    return { ok: true };
  }),
  /** An empty (or blank) message is refused with `empty_commit_message`. */
  commit: procedure
    .input(z.object({ message: z.string().max(100_000), ...session }))
    .mutation(async ({ ctx, input }) => (await gitOf(ctx, input.sessionId)).commit(input.message)),
  draftMessage: procedure
    .input(sessionInput)
    .mutation(async ({ ctx, input, signal }) => (await gitOf(ctx, input?.sessionId)).draftMessage(signal ?? new AbortController().signal)),
  createBranch: procedure.input(z.object({ name: branchName, ...session })).mutation(async ({ ctx, input }) => {
    await (await gitOf(ctx, input.sessionId)).createBranch(input.name);
    return { ok: true };
  }),
  switchBranch: procedure.input(z.object({ name: branchName, ...session })).mutation(async ({ ctx, input }) => {
    await (await gitOf(ctx, input.sessionId)).switchBranch(input.name);
    return { ok: true };
  }),
  push: procedure.input(sessionInput).mutation(async ({ ctx, input }) => (await gitOf(ctx, input?.sessionId)).push()),
});
