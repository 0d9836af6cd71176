import { setImmediate as nextTurn } from "node:timers/promises";
import { z } from "zod";
import type { StoredLineTexts } from "../session-store/session-store.ts";
import type { LineStore } from "./store-timeline-cache.ts";
import { errorOf, failureOf, type MessageEnd, type WorkerFailure } from "./timeline-worker-protocol.ts";

/**
 * A timeline thread building from a store of rows (PostgreSQL) asks the thread that owns the store for the rows:
 * `{ rowsId, sessionId, afterLine, afterSidechains }` there; back come the rows in parts (`{ rowsReply, part }`, the
 * session's when `agentId` is absent, else that sidechain's), then `{ rowsReply, ok, value | error }` with the counts.
 * Parts of ROWS_PER_PART rows, one per turn of the owning thread's event loop: copying 100,000 rows (some 45 MB) to the
 * other thread at once would hold that loop for a second. Nothing here carries an `id`, so nothing is taken for a
 * timeline request or its answer.
 */
const ROWS_PER_PART = 2_000;
type RowsPart = { rowsReply: number; part: { agentId?: string; texts: string[] } };
const rowsRequestSchema = z.object({
  rowsId: z.number(),
  sessionId: z.string(),
  afterLine: z.number(),
  afterSidechains: z.map(z.string(), z.number()),
});
type RowsReply = { rowsReply: number; ok: true; value: StoredLineTexts | undefined } | { rowsReply: number; ok: false; error: WorkerFailure };
const rowsReplySchema = z.object({ rowsReply: z.number() }).loose();

/** The timeline thread's store of rows: each read is asked of the thread that owns the store (`serveRows` there). */
export function rowsOverThread(end: MessageEnd): LineStore {
  type Waiting = { parts: Map<string, string[][]>; resolve: (value: StoredLineTexts | undefined) => void; reject: (error: Error) => void };
  const pending = new Map<number, Waiting>();
  let nextId = 1;
  end.on("message", (message) => {
    if (!rowsReplySchema.safeParse(message).success) return;
    const reply = message as RowsReply | RowsPart;
    const waiting = pending.get(reply.rowsReply);
    if (!waiting) return;
    if ("part" in reply) {
      const key = reply.part.agentId === undefined ? "" : `agent:${reply.part.agentId}`;
      const parts = waiting.parts.get(key) ?? [];
      parts.push(reply.part.texts);
      waiting.parts.set(key, parts);
      return;
    }
    pending.delete(reply.rowsReply);
    if (!reply.ok) {
      waiting.reject(errorOf(reply.error));
      return;
    }
    const value = reply.value;
    const textsOf = (key: string) => (waiting.parts.get(key) ?? []).flat();
    waiting.resolve(
      value && {
        ...value,
        texts: textsOf(""),
        sidechains: value.sidechains.map((sidechain) => ({ ...sidechain, texts: textsOf(`agent:${sidechain.agentId}`) })),
      },
    );
  });
  return {
    lineTexts(sessionId, afterLine, afterSidechains = new Map()) {
      const rowsId = nextId++;
      return new Promise((resolve, reject) => {
        pending.set(rowsId, { parts: new Map(), resolve, reject });
        end.postMessage({ rowsId, sessionId, afterLine, afterSidechains: new Map(afterSidechains) });
      });
    },
  };
}

/** The owning thread's side: answers a timeline thread's reads of rows from `rows`; true when `message` was one. */
export function answerRows(message: unknown, rows: LineStore, reply: (message: RowsReply | RowsPart) => void): boolean {
  const parsed = rowsRequestSchema.safeParse(message);
  if (!parsed.success) return false;
  const { rowsId, sessionId, afterLine, afterSidechains } = parsed.data;
  const send = async () => {
    const value = await rows.lineTexts(sessionId, afterLine, afterSidechains);
    const threads = value
      ? [{ key: undefined, texts: value.texts }, ...value.sidechains.map((sidechain) => ({ key: sidechain.agentId, texts: sidechain.texts }))]
      : [];
    let sent = 0;
    for (const thread of threads) {
      for (let start = 0; start < thread.texts.length; start += ROWS_PER_PART) {
        if (sent++ > 0) await nextTurn();
        const texts = thread.texts.slice(start, start + ROWS_PER_PART);
        reply({ rowsReply: rowsId, part: thread.key === undefined ? { texts } : { agentId: thread.key, texts } });
      }
    }
    // The counts and descriptions without the rows, which went ahead.
    return value && { ...value, texts: [], sidechains: value.sidechains.map((sidechain) => ({ ...sidechain, texts: [] })) };
  };
  send().then(
    (value) => reply({ rowsReply: rowsId, ok: true, value }),
    (error: unknown) => reply({ rowsReply: rowsId, ok: false, error: failureOf(error) }),
  );
  return true;
}
