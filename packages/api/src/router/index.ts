import { tracked } from "@trpc/server";
import { z } from "zod";
import { permissionAnswerSchema, permissionBehaviorSchema, permissionModeSchema } from "@cairn/core/schema";
import { procedure, router } from "./trpc.ts";
import { mcpRouter } from "./mcp.ts";
import { shareRouter } from "./share.ts";
import { timelineRouter } from "./timeline.ts";
import { changesRouter, reviewRouter } from "./review.ts";
import { gitRouter } from "./git.ts";
import { worktreeRouter } from "./worktree.ts";
import { whileSignedIn } from "./signed-in-stream.ts";

const sessionId = z.string().regex(/^[A-Za-z0-9_-]{1,128}$/, "not a session id");
const messageUuid = z.string().min(1).max(200);
const workspacePath = z.string().min(1).max(4096);
const rule = z.string().min(1).max(1000);
/** `lastEventId` as tracked() ids travel: the decimal seq of the last event seen. */
const lastEventId = z
  .string()
  .regex(/^\d{1,15}$/)
  .nullish();

/** `session.events`' input; the route that writes its responses directly (session-events-route.ts) parses it too. */
export const sessionEventsInput = z.object({ sessionId, lastEventId });

export const afterSeq = (id: string | null | undefined): number => (id ? Number(id) : 0);

/** Subscriptions end quietly when the client goes away (P9). */
function quietOnAbort(signal: AbortSignal | undefined, error: unknown): void {
  if (signal?.aborted) return;
  throw error;
}

const meta = router({
  info: procedure.query(({ ctx }) => ctx.meta.info()),
  /** The user trusts this workspace (project hooks and MCP servers may run); remembered in $CAIRN_HOME/trusted.json. */
  trust: procedure.mutation(({ ctx }) => ctx.meta.trust()),
});

const auth = router({
  /** Signs every browser out (each must open the printed link again); bearer-token scripts are unaffected. */
  signOutEverywhere: procedure.mutation(async ({ ctx }) => ({ revoked: await ctx.auth.signOutEverywhere() })),
});

const session = router({
  create: procedure
    .input(z.object({ model: z.string().min(1).max(200).optional(), permissionMode: permissionModeSchema.optional() }).optional())
    .mutation(({ ctx, input }) => ctx.sessions.create(input ?? {})),
  list: procedure.query(({ ctx }) => ctx.sessions.list()),
  get: procedure.input(z.object({ sessionId })).query(({ ctx, input }) => ctx.sessions.get(input.sessionId)),
  /** Runs the prompt; while a run is going the prompt is queued (FIFO, at most 10) and runs next. */
  send: procedure
    .input(z.object({ sessionId, prompt: z.string().min(1).max(200_000) }))
    .mutation(({ ctx, input }) => ctx.sessions.send(input.sessionId, input.prompt)),
  /** Aborts the running prompt and drops queued ones. */
  interrupt: procedure.input(z.object({ sessionId })).mutation(({ ctx, input }) => ctx.sessions.interrupt(input.sessionId)),
  setMode: procedure.input(z.object({ sessionId, mode: permissionModeSchema })).mutation(({ ctx, input }) => ctx.sessions.setMode(input.sessionId, input.mode)),
  setModel: procedure
    .input(z.object({ sessionId, model: z.string().min(1).max(200) }))
    .mutation(({ ctx, input }) => ctx.sessions.setModel(input.sessionId, input.model)),
  compact: procedure
    .input(z.object({ sessionId, instructions: z.string().max(10_000).optional() }))
    .mutation(({ ctx, input }) => ctx.sessions.compact(input.sessionId, input.instructions)),
  fork: procedure.input(z.object({ sessionId, messageUuid })).mutation(({ ctx, input }) => ctx.sessions.fork(input.sessionId, input.messageUuid)),
  rewind: procedure
    .input(z.object({ sessionId, messageUuid, mode: z.enum(["files", "conversation", "both"]) }))
    .mutation(({ ctx, input }) => ctx.sessions.rewind(input.sessionId, input.messageUuid, input.mode)),
  /** The files a "files" rewind to the message would change, before anything changes. */
  rewindPreview: procedure
    .input(z.object({ sessionId, messageUuid }))
    .query(({ ctx, input }) => ctx.sessions.rewindPreview(input.sessionId, input.messageUuid)),
  /** Undoes a rewind: the files go back to its backup checkpoint (the present is backed up in turn). */
  restoreCheckpoint: procedure
    .input(z.object({ commit: z.string().regex(/^[0-9a-f]{40}$/, "not a checkpoint id"), sessionId: sessionId.optional() }))
    .mutation(({ ctx, input }) => ctx.sessions.restoreCheckpoint(input.commit, input.sessionId)),
  /**
   * Every event of the session after `lastEventId`, then live ones; each is `tracked(String(seq), event)`,
   * so an EventSource reconnect resumes with no gap and no duplicate. The first event after subscribing
   * is not guaranteed to be a `session-state`: call `session.get` for the starting state.
   */
  events: procedure.input(sessionEventsInput).subscription(async function* ({ ctx, input, signal }) {
    try {
      for await (const { seq, event } of whileSignedIn(ctx, signal, (abort) => ctx.sessions.events(input.sessionId, afterSeq(input.lastEventId), abort))) {
        yield tracked(String(seq), event);
      }
    } catch (error) {
      quietOnAbort(signal, error);
    }
  }),
});

const memory = router({
  /** The session's memory files (path, kind, size, cut or not), notices, skills, invalid skill files and slash commands. */
  get: procedure.input(z.object({ sessionId: sessionId.optional() }).optional()).query(({ ctx, input }) => ctx.sessions.memory(input?.sessionId)),
});

const permission = router({
  /** The first answer wins; later ones (from other tabs) get `accepted: false`. */
  respond: procedure
    .input(z.object({ sessionId, requestId: z.string().min(1).max(200), answer: permissionAnswerSchema }))
    .mutation(({ ctx, input }) => ctx.sessions.respond(input.sessionId, input.requestId, input.answer)),
});

const workspace = router({
  tree: procedure.input(z.object({ path: workspacePath.optional() }).optional()).query(({ ctx, input }) => ctx.files.tree(input?.path)),
  read: procedure.input(z.object({ path: workspacePath })).query(({ ctx, input }) => ctx.files.read(input.path)),
  /** With `expectedMtimeMs`, refuses (CONFLICT, `data.cairn.details.currentMtimeMs`) when the file changed since. */
  write: procedure
    .input(z.object({ path: workspacePath, content: z.string().max(10_000_000), expectedMtimeMs: z.number().optional() }))
    .mutation(({ ctx, input }) => ctx.files.write(input.path, input.content, input.expectedMtimeMs)),
  create: procedure
    .input(z.object({ path: workspacePath, kind: z.enum(["file", "directory"]) }))
    .mutation(({ ctx, input }) => ctx.files.create(input.path, input.kind)),
  rename: procedure.input(z.object({ from: workspacePath, to: workspacePath })).mutation(({ ctx, input }) => ctx.files.rename(input.from, input.to)),
  delete: procedure.input(z.object({ path: workspacePath })).mutation(({ ctx, input }) => ctx.files.delete(input.path)),
  /** File changes in the workspace (from the editor, the agent or anything else). Not resumable: refetch the tree on reconnect. */
  watch: procedure.subscription(async function* ({ ctx, signal }) {
    try {
      for await (const change of whileSignedIn(ctx, signal, (abort) => ctx.files.watch(abort))) yield change;
    } catch (error) {
      quietOnAbort(signal, error);
    }
  }),
});

const ruleInput = z.discriminatedUnion("scope", [
  z.object({ scope: z.literal("session"), sessionId, behavior: permissionBehaviorSchema, rule }),
  z.object({ scope: z.literal("local"), behavior: permissionBehaviorSchema, rule }),
]);

const settings = router({
  /** Merged permission rules with their sources (the session's own rules too, given a session), and settings problems. */
  get: procedure.input(z.object({ sessionId: sessionId.optional() }).optional()).query(({ ctx, input }) => ctx.settings.get(input?.sessionId)),
  /** "local" writes `.claude/settings.local.json`; "session" lasts as long as the live session. */
  addRule: procedure.input(ruleInput).mutation(async ({ ctx, input }) => {
    if (input.scope === "session") await ctx.sessions.addSessionRule(input.sessionId, input.behavior, input.rule);
    else await ctx.settings.addLocalRule(input.behavior, input.rule);
    return { added: true };
  }),
  removeRule: procedure.input(ruleInput).mutation(async ({ ctx, input }) => {
    const removed =
      input.scope === "session"
        ? await ctx.sessions.removeSessionRule(input.sessionId, input.behavior, input.rule)
        : await ctx.settings.removeLocalRule(input.behavior, input.rule);
    return { removed };
  }),
});

const terminalId = z.string().regex(/^[A-Za-z0-9_-]{1,64}$/);

const terminal = router({
  open: procedure
    .input(z.object({ cols: z.number().int().min(2).max(1000).default(80), rows: z.number().int().min(1).max(500).default(24) }).optional())
    .mutation(({ ctx, input }) => ctx.terminals.open({ cols: input?.cols ?? 80, rows: input?.rows ?? 24 })),
  input: procedure.input(z.object({ terminalId, data: z.string().max(100_000) })).mutation(async ({ ctx, input }) => {
    await ctx.terminals.input(input.terminalId, input.data);
    return { ok: true };
  }),
  resize: procedure
    .input(z.object({ terminalId, cols: z.number().int().min(2).max(1000), rows: z.number().int().min(1).max(500) }))
    .mutation(async ({ ctx, input }) => {
      await ctx.terminals.resize(input.terminalId, input.cols, input.rows);
      return { ok: true };
    }),
  close: procedure.input(z.object({ terminalId })).mutation(async ({ ctx, input }) => {
    await ctx.terminals.close(input.terminalId);
    return { ok: true };
  }),
  /** The shell's output, `tracked(String(seq), chunk)`; reconnects replay the retained output after `lastEventId`. */
  output: procedure.input(z.object({ terminalId, lastEventId })).subscription(async function* ({ ctx, input, signal }) {
    try {
      for await (const { seq, output } of whileSignedIn(ctx, signal, (abort) => ctx.terminals.output(input.terminalId, afterSeq(input.lastEventId), abort))) {
        yield tracked(String(seq), output);
      }
    } catch (error) {
      quietOnAbort(signal, error);
    }
  }),
});

export const appRouter = router({
  meta,
  auth,
  session,
  memory,
  permission,
  workspace,
  settings,
  terminal,
  share: shareRouter,
  mcp: mcpRouter,
  timeline: timelineRouter,
  changes: changesRouter,
  review: reviewRouter,
  git: gitRouter,
  worktree: worktreeRouter,
});
export type AppRouter = typeof appRouter;
