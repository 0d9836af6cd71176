import { z } from "zod";
import type { Database } from "./database.ts";

/** What changed in the shared state, told to every node (PostgreSQL LISTEN/NOTIFY on one channel). */
export const sharedChangeSchema = z.discriminatedUnion("kind", [
  z.object({ kind: z.literal("share"), shareId: z.string(), change: z.enum(["rotated", "revoked"]) }),
  z.object({ kind: z.literal("trust"), workspaceRoot: z.string() }),
  z.object({ kind: z.literal("local-settings"), workspaceRoot: z.string() }),
  z.object({ kind: z.literal("sign-out") }),
  z.object({ kind: z.literal("access-token") }),
]);
export type SharedChange = z.infer<typeof sharedChangeSchema>;

const CHANNEL = "cairn_changes";

/**
 * The nodes' change notices. `postgres` keeps the LISTEN on a connection of its own and re-issues it after
 * a reconnect; a notice sent while a node was cut off is missed, which is why readers re-check what they
 * hold (an open share stream re-reads its share every half second) rather than trust notices alone.
 */
export type ChangeChannel = {
  publish(change: SharedChange): Promise<void>;
  /** Delivers every notice from now on; the LISTEN starts with the first subscriber and is in place once `listening` resolves. */
  subscribe(listener: (change: SharedChange) => void): () => void;
  /**
   * Starts the LISTEN if nothing has yet and resolves once PostgreSQL has it in place (false when it could not, logged):
   * a notice sent before then is not delivered. A node waits for it at start, before it serves anything.
   */
  listening(): Promise<boolean>;
  close(): Promise<void>;
};

export function createChangeChannel(sql: Database, onError: (message: string) => void): ChangeChannel {
  const listeners = new Set<(change: SharedChange) => void>();
  let listening: Promise<{ unlisten(): Promise<void> } | undefined> | undefined;
  const deliver = (payload: string) => {
    let change: SharedChange;
    try {
      change = sharedChangeSchema.parse(JSON.parse(payload));
    } catch {
      onError(`ignored a malformed change notice on ${CHANNEL}`);
      return;
    }
    for (const listener of [...listeners]) listener(change);
  };
  return {
    async publish(change) {
      await sql.notify(CHANNEL, JSON.stringify(change));
    },
    subscribe(listener) {
      listeners.add(listener);
      void listen();
      return () => listeners.delete(listener);
    },
    listening: () => listen().then((active) => active !== undefined),
    async close() {
      listeners.clear();
      const active = listening;
      listening = undefined;
      await (await active)?.unlisten().catch(() => undefined);
    },
  };

  /** The LISTEN, started once: `postgres` resolves it when the server has run it (and re-issues it after a reconnect). */
  function listen(): Promise<{ unlisten(): Promise<void> } | undefined> {
    listening ??= Promise.resolve(sql.listen(CHANNEL, deliver)).catch((error: unknown) => {
      listening = undefined;
      onError(`could not listen for changes: ${(error as Error).message}`);
      return undefined;
    });
    return listening;
  }
}
