import { initTRPC } from "@trpc/server";
import { WorkspaceError } from "@cairn/core";
import type { ApiContext } from "./context.ts";
import { ApiError, apiErrorData } from "./errors.ts";
import { fromWorkspaceError } from "./workspace-errors.ts";

/** Subscriptions' SSE options; `session.events` responses, written without tRPC's stream (event-stream-response.ts), use them too. */
export const SSE_OPTIONS = {
  ping: { enabled: true, intervalMs: 2_000 },
  client: { reconnectAfterInactivityMs: 5_000 },
};

const t = initTRPC.context<ApiContext>().create({
  // Never stack traces (they name the server's files), whatever NODE_ENV says; the share router does the same.
  isDev: false,
  sse: SSE_OPTIONS,
  errorFormatter({ shape, error }) {
    const { stack: _stack, ...data } = shape.data;
    return { ...shape, data: { ...data, cairn: apiErrorData(error) } };
  },
});

/** Domain errors thrown by a procedure become tRPC errors with the right status and `data.cairn`. */
const mapErrors = t.middleware(async ({ next }) => {
  const result = await next();
  if (result.ok) return result;
  const cause = result.error.cause;
  if (cause instanceof ApiError) throw cause.toTRPCError();
  if (cause instanceof WorkspaceError) {
    const mapped = fromWorkspaceError(cause);
    if (mapped instanceof ApiError) throw mapped.toTRPCError();
  }
  return result;
});

export const router = t.router;
export const procedure = t.procedure.use(mapErrors);
