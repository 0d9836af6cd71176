import { randomUUID } from "node:crypto";
import { z } from "zod";
import {
  ShareChangeListeners,
  shareModeSchema,
  shareRecordFromRow,
  type NewShare,
  type ShareChange,
  type ShareRecord,
  type ShareRepository,
} from "../../share/share-records.ts";
import { generateShareToken, hashShareToken } from "../../share/share-token.ts";
import type { ChangeChannel } from "./change-channel.ts";
import type { Database } from "./database.ts";

/** bigint columns come back as strings: epoch milliseconds fit a double exactly. */
const epoch = z.coerce.number().int();
const rowSchema = z.object({
  share_id: z.string(),
  session_id: z.string(),
  workspace_root: z.string(),
  title: z.string(),
  mode: shareModeSchema,
  pinned_message_uuid: z.string().nullable(),
  created_at: epoch,
  expires_at: epoch,
  revoked_at: epoch.nullable(),
  last_access_at: epoch.nullable(),
  view_count: z.number(),
});

export type PostgresShareRepositoryOptions = { sql: Database; changes: ChangeChannel; now?: () => number };

/**
 * Shares in PostgreSQL (`cairn_shares`), the same rows as the embedded SQLite store: the token's SHA-256,
 * never the token. A rotate or revoke on any node is told to every node's open share streams through
 * the change channel, so they end within the time a notice takes, not only at their next re-check.
 */
export function createPostgresShareRepository(options: PostgresShareRepositoryOptions): ShareRepository {
  const { sql, changes } = options;
  const now = options.now ?? Date.now;
  const listeners = new ShareChangeListeners();
  const stopListening = changes.subscribe((change) => {
    if (change.kind === "share") listeners.emit({ shareId: change.shareId, kind: change.change });
  });
  const one = (rows: readonly unknown[]): ShareRecord | undefined => (rows[0] === undefined ? undefined : shareRecordFromRow(rowSchema.parse(rows[0])));
  const announce = async (change: ShareChange) => {
    // This node's streams first; the notice reaches the others (and comes back here, a harmless second re-check).
    listeners.emit(change);
    await changes.publish({ kind: "share", shareId: change.shareId, change: change.kind }).catch(() => undefined);
  };
  return {
    async create(share: NewShare) {
      const token = generateShareToken();
      const record: ShareRecord = { ...share, shareId: randomUUID(), createdAt: now(), revokedAt: null, lastAccessAt: null, viewCount: 0 };
      await sql`
        insert into cairn_shares (share_id, token_hash, session_id, workspace_root, title, mode, pinned_message_uuid, created_at, expires_at)
        values (${record.shareId}, ${hashShareToken(token)}, ${record.sessionId}, ${record.workspaceRoot}, ${record.title}, ${record.mode},
                ${record.pinnedMessageUuid}, ${record.createdAt}, ${record.expiresAt})`;
      return { record, token };
    },
    async findByToken(token) {
      return one(await sql`select * from cairn_shares where token_hash = ${hashShareToken(token)}`);
    },
    async get(shareId) {
      return one(await sql`select * from cairn_shares where share_id = ${shareId}`);
    },
    async list(workspaceRoot) {
      const rows = await sql`select * from cairn_shares where workspace_root = ${workspaceRoot} order by created_at desc, share_id`;
      return rows.map((row) => shareRecordFromRow(rowSchema.parse(row)));
    },
    async rotate(shareId) {
      const token = generateShareToken();
      const rows =
        await sql`update cairn_shares set token_hash = ${hashShareToken(token)} where share_id = ${shareId} and revoked_at is null returning share_id`;
      if (rows.length === 0) return undefined;
      await announce({ shareId, kind: "rotated" });
      return token;
    },
    async revoke(shareId) {
      const rows = await sql`update cairn_shares set revoked_at = ${now()} where share_id = ${shareId} and revoked_at is null returning share_id`;
      if (rows.length === 0) return false;
      await announce({ shareId, kind: "revoked" });
      return true;
    },
    async recordView(shareId) {
      await sql`update cairn_shares set view_count = view_count + 1, last_access_at = ${now()} where share_id = ${shareId}`;
    },
    onChange: (listener) => listeners.add(listener),
    listenerCount: () => listeners.size,
    async close() {
      stopListening();
      listeners.clear();
    },
  };
}
