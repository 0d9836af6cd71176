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

function gitOf(ctx: ApiContext): GitPort {
  if (!ctx.git) throw new ApiError("not_implemented", "Git is not available on this server");
  return ctx.git;
}

/** The workspace's git repository: status, stage, commit (message drafted by the model on request), branches, push, init. */
export const gitRouter = router({
  status: procedure.query(({ ctx }) => gitOf(ctx).status()),
  branches: procedure.query(({ ctx }) => gitOf(ctx).branches()),
  init: procedure.mutation(async ({ ctx }) => {
    await gitOf(ctx).init();
    return { ok: true };
  }),
  stage: procedure.input(z.object({ paths })).mutation(async ({ ctx, input }) => {
    await gitOf(ctx).stage(input.paths);
    return { ok: true };
  }),
  unstage: procedure.input(z.object({ paths })).mutation(async ({ ctx, input }) => {
    await gitOf(ctx).unstage(input.paths);
    return { ok: true };
  }),
  /** An empty (or blank) message is refused with `empty_commit_message`. */
  commit: procedure.input(z.object({ message: z.string().max(100_000) })).mutation(({ ctx, input }) => gitOf(ctx).commit(input.message)),
  draftMessage: procedure.mutation(({ ctx, signal }) => gitOf(ctx).draftMessage(signal ?? new AbortController().signal)),
  createBranch: procedure.input(z.object({ name: branchName })).mutation(async ({ ctx, input }) => {
    await gitOf(ctx).createBranch(input.name);
    return { ok: true };
  }),
  switchBranch: procedure.input(z.object({ name: branchName })).mutation(async ({ ctx, input }) => {
    await gitOf(ctx).switchBranch(input.name);
    return { ok: true };
  }),
  push: procedure.mutation(({ ctx }) => gitOf(ctx).push()),
});
