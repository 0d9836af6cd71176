import type Database from "better-sqlite3";
import { randomUUID } from "node:crypto";
import { z } from "zod";
import { openVersionedDatabase } from "../sqlite/versioned-database.ts";
import { generateShareToken, hashShareToken } from "./share-token.ts";

export const shareModeSchema = z.enum(["live", "snapshot"]);
export type ShareMode = z.infer<typeof shareModeSchema>;

/** One share as stored. Times are epoch milliseconds. The token itself is never stored. */
export type ShareRecord = {
  shareId: string;
  sessionId: string;
  workspaceRoot: string;
  title: string;
  mode: ShareMode;
  pinnedMessageUuid: string | null;
  createdAt: number;
  expiresAt: number;
  revokedAt: number | null;
  lastAccessAt: number | null;
  viewCount: number;
};

export type NewShare = Pick<ShareRecord, "sessionId" | "workspaceRoot" | "title" | "mode" | "pinnedMessageUuid" | "expiresAt">;

/** Why a share changed: streams of a share that changed re-check it at once. */
export type ShareChange = { shareId: string; kind: "rotated" | "revoked" };

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

/** A share is live until it expires or is revoked. */
export function isShareLive(record: ShareRecord, now: number): boolean {
  return record.revokedAt === null && now < record.expiresAt;
}

/**
 * Shares in SQLite (`$CAIRN_HOME/shares.db`): one row per share, looked up by the SHA-256 of the
 * token, so a lookup never compares a presented token with a stored secret byte by byte.
 */
export class ShareStore {
  readonly path: string;
  private readonly db: Database.Database;
  private readonly now: () => number;
  private readonly listeners = new Set<(change: ShareChange) => void>();

  constructor(options: { path: string; now?: () => number }) {
    this.path = options.path;
    this.now = options.now ?? Date.now;
    this.db = openVersionedDatabase(options.path, {
      version: SCHEMA_VERSION,
      schema: SCHEMA,
      schemaError: (found) => new ShareStoreError(`${options.path} has share schema ${String(found)}; this Cairn knows ${SCHEMA_VERSION}`),
    });
  }

  /** Stores a new share and returns its token: the only time the token exists outside the caller. */
  create(share: NewShare): { record: ShareRecord; token: string } {
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

  /** The share a token opens, live or not; undefined for an unknown token. */
  findByToken(token: string): ShareRecord | undefined {
    return this.one(`SELECT ${COLUMNS} FROM shares WHERE token_hash = ?`, hashShareToken(token));
  }

  get(shareId: string): ShareRecord | undefined {
    return this.one(`SELECT ${COLUMNS} FROM shares WHERE share_id = ?`, shareId);
  }

  /** The shares of one workspace, newest first. */
  list(workspaceRoot: string): ShareRecord[] {
    return this.db
      .prepare(`SELECT ${COLUMNS} FROM shares WHERE workspace_root = ? ORDER BY created_at DESC, share_id`)
      .all(workspaceRoot)
      .map((row) => toRecord(rowSchema.parse(row)));
  }

  /** A new token for the same share; the old one stops working at once. Undefined when there is no such share or it was revoked. */
  rotate(shareId: string): string | undefined {
    const token = generateShareToken();
    const result = this.db.prepare("UPDATE shares SET token_hash = ? WHERE share_id = ? AND revoked_at IS NULL").run(hashShareToken(token), shareId);
    if (result.changes === 0) return undefined;
    this.emit({ shareId, kind: "rotated" });
    return token;
  }

  /** True when this call revoked it; false when it was already revoked or does not exist. */
  revoke(shareId: string): boolean {
    const result = this.db.prepare("UPDATE shares SET revoked_at = ? WHERE share_id = ? AND revoked_at IS NULL").run(this.now(), shareId);
    if (result.changes === 0) return false;
    this.emit({ shareId, kind: "revoked" });
    return true;
  }

  recordView(shareId: string): void {
    this.db.prepare("UPDATE shares SET view_count = view_count + 1, last_access_at = ? WHERE share_id = ?").run(this.now(), shareId);
  }

  /** Called after every rotate and revoke; returns the unsubscribe function. */
  onChange(listener: (change: ShareChange) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  listenerCount(): number {
    return this.listeners.size;
  }

  close(): void {
    this.listeners.clear();
    this.db.close();
  }

  private one(sql: string, parameter: string): ShareRecord | undefined {
    const row = this.db.prepare(sql).get(parameter);
    return row === undefined ? undefined : toRecord(rowSchema.parse(row));
  }

  private emit(change: ShareChange): void {
    for (const listener of [...this.listeners]) listener(change);
  }
}

function toRecord(row: z.infer<typeof rowSchema>): ShareRecord {
  return {
    shareId: row.share_id,
    sessionId: row.session_id,
    workspaceRoot: row.workspace_root,
    title: row.title,
    mode: row.mode,
    pinnedMessageUuid: row.pinned_message_uuid,
    createdAt: row.created_at,
    expiresAt: row.expires_at,
    revokedAt: row.revoked_at,
    lastAccessAt: row.last_access_at,
    viewCount: row.view_count,
  };
}
