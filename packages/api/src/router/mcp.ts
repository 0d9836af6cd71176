import { z } from "zod";
import { procedure, router } from "./trpc.ts";
import { whileSignedIn } from "./signed-in-stream.ts";

const neverAborted = new AbortController().signal;

/**
 * MCP servers for the web IDE's panel. `servers` is the full picture (status, tools, resources,
 * prompts); `changes` is a subscription that yields every server's name and status at once and after
 * each change, so the panel refetches `servers` only when something moved (no polling).
 */
export const mcpRouter = router({
  servers: procedure.query(({ ctx, signal }) => ctx.mcp.servers(signal ?? neverAborted)),
  /** Drops the server's connection and connects again now; resolves with its new entry. */
  reconnect: procedure
    .input(z.object({ name: z.string().min(1).max(500) }))
    .mutation(({ ctx, input, signal }) => ctx.mcp.reconnect(input.name, signal ?? neverAborted)),
  changes: procedure.subscription(async function* ({ ctx, signal }) {
    try {
      for await (const servers of whileSignedIn(ctx, signal, (abort) => ctx.mcp.changes(abort))) yield servers;
    } catch (error) {
      if (!signal?.aborted) throw error;
    }
  }),
});
