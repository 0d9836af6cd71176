import type Database from "better-sqlite3";
import { randomUUID } from "node:crypto";
import { z } from "zod";
import { openVersionedDatabase } from "../sqlite/versioned-database.ts";
import {
  ShareChangeListeners,
  shareModeSchema,
  shareRecordFromRow,
  type NewShare,
  type ShareChange,
  type ShareRecord,
  type ShareRepository,
} from "./share-records.ts";
import { generateShareToken, hashShareToken } from "./share-token.ts";

const SCHEMA_VERSION = 1;
const SCHEMA = `
  CREATE TABLE IF NOT EXISTS shares (
    share_id TEXT PRIMARY KEY,
    token_hash TEXT NOT NULL UNIQUE,
    session_id TEXT NOT NULL,
    workspace_root TEXT NOT NULL,
    title TEXT NOT NULL,
    mode TEXT NOT NULL CHECK (mode IN ('live', 'snapshot')),
    pinned_message_uuid TEXT,
    created_at INTEGER NOT NULL,
    expires_at INTEGER NOT NULL,
    revoked_at INTEGER,
    last_access_at INTEGER,
    view_count INTEGER NOT NULL DEFAULT 0
  );
  CREATE INDEX IF NOT EXISTS shares_by_workspace ON shares (workspace_root, created_at DESC);
`;

const rowSchema = z.object({
  share_id: z.string(),
  session_id: z.string(),
  workspace_root: z.string(),
  title: z.string(),
  mode: shareModeSchema,
  pinned_message_uuid: z.string().nullable(),
  created_at: z.number(),
  expires_at: z.number(),
  revoked_at: z.number().nullable(),
  last_access_at: z.number().nullable(),
  view_count: z.number(),
});

const COLUMNS = "share_id, session_id, workspace_root, title, mode, pinned_message_uuid, created_at, expires_at, revoked_at, last_access_at, view_count";

export class ShareStoreError extends Error {
  override readonly name = "ShareStoreError";
  readonly code = "share_store_schema";
}

/**
 * Shares in SQLite (`$CAIRN_HOME/shares.db`): one row per share, looked up by the SHA-256 of the
 * token, so a lookup never compares a presented token with a stored secret byte by byte.
 */
export class ShareStore implements ShareRepository {
  readonly path: string;
  private readonly db: Database.Database;
  private readonly now: () => number;
  private readonly listeners = new ShareChangeListeners();

  constructor(options: { path: string; now?: () => number }) {
    this.path = options.path;
    this.now = options.now ?? Date.now;
    this.db = openVersionedDatabase(options.path, {
      version: SCHEMA_VERSION,
      schema: SCHEMA,
      schemaError: (found) => new ShareStoreError(`${options.path} has share schema ${String(found)}; this Cairn knows ${SCHEMA_VERSION}`),
    });
  }

  async create(share: NewShare): Promise<{ record: ShareRecord; token: string }> {
    const token = generateShareToken();
    const record: ShareRecord = { ...share, shareId: randomUUID(), createdAt: this.now(), revokedAt: null, lastAccessAt: null, viewCount: 0 };
    this.db
      .prepare(`INSERT INTO shares (${COLUMNS}, token_hash) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`)
      .run(
        record.shareId,
        record.sessionId,
        record.workspaceRoot,
        record.title,
        record.mode,
        record.pinnedMessageUuid,
        record.createdAt,
        record.expiresAt,
        null,
        null,
        0,
        hashShareToken(token),
      );
    return { record, token };
  }

  async findByToken(token: string): Promise<ShareRecord | undefined> {
    return this.one(`SELECT ${COLUMNS} FROM shares WHERE token_hash = ?`, hashShareToken(token));
  }

  async get(shareId: string): Promise<ShareRecord | undefined> {
    return this.one(`SELECT ${COLUMNS} FROM shares WHERE share_id = ?`, shareId);
  }

  async list(workspaceRoot: string): Promise<ShareRecord[]> {
    return this.db
      .prepare(`SELECT ${COLUMNS} FROM shares WHERE workspace_root = ? ORDER BY created_at DESC, share_id`)
      .all(workspaceRoot)
      .map((row) => shareRecordFromRow(rowSchema.parse(row)));
  }

  async rotate(shareId: string): Promise<string | undefined> {
    const token = generateShareToken();
    const result = this.db.prepare("UPDATE shares SET token_hash = ? WHERE share_id = ? AND revoked_at IS NULL").run(hashShareToken(token), shareId);
    if (result.changes === 0) return undefined;
    this.emit({ shareId, kind: "rotated" });
    return token;
  }

  async revoke(shareId: string): Promise<boolean> {
    const result = this.db.prepare("UPDATE shares SET revoked_at = ? WHERE share_id = ? AND revoked_at IS NULL").run(this.now(), shareId);
    if (result.changes === 0) return false;
    this.emit({ shareId, kind: "revoked" });
    return true;
  }

  async recordView(shareId: string): Promise<void> {
    this.db.prepare("UPDATE shares SET view_count = view_count + 1, last_access_at = ? WHERE share_id = ?").run(this.now(), shareId);
  }

  onChange(listener: (change: ShareChange) => void): () => void {
    return this.listeners.add(listener);
  }

  listenerCount(): number {
    return this.listeners.size;
  }

  async close(): Promise<void> {
    this.listeners.clear();
    this.db.close();
  }

  private one(sql: string, parameter: string): ShareRecord | undefined {
    const row = this.db.prepare(sql).get(parameter);
    return row === undefined ? undefined : shareRecordFromRow(rowSchema.parse(row));
  }

  private emit(change: ShareChange): void {
    this.listeners.emit(change);
  }
}
