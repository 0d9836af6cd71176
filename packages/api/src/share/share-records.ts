import { z } from "zod";

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

/** A share is live until it expires or is revoked. */
export function isShareLive(record: ShareRecord, now: number): boolean {
  return record.revokedAt === null && now < record.expiresAt;
}

/**
 * Where shares are kept, looked up by the SHA-256 of the token only: SQLite in `$CAIRN_HOME/shares.db`
 * embedded, PostgreSQL in distributed mode (so a link made on one node opens on every node).
 */
export interface ShareRepository {
  /** Stores a new share and returns its token: the only time the token exists outside the caller. */
  create(share: NewShare): Promise<{ record: ShareRecord; token: string }>;
  /** The share a token opens, live or not; undefined for an unknown token. */
  findByToken(token: string): Promise<ShareRecord | undefined>;
  get(shareId: string): Promise<ShareRecord | undefined>;
  /** The shares of one workspace, newest first. */
  list(workspaceRoot: string): Promise<ShareRecord[]>;
  /** A new token for the same share; the old one stops working at once. Undefined when there is no such share or it was revoked. */
  rotate(shareId: string): Promise<string | undefined>;
  /** True when this call revoked it; false when it was already revoked or does not exist. */
  revoke(shareId: string): Promise<boolean>;
  recordView(shareId: string): Promise<void>;
  /** Called after every rotate and revoke (on any node, where the store can tell); returns the unsubscribe function. */
  onChange(listener: (change: ShareChange) => void): () => void;
  listenerCount(): number;
  close(): Promise<void>;
}

/** The listeners of a repository's changes. */
export class ShareChangeListeners {
  private readonly listeners = new Set<(change: ShareChange) => void>();

  add(listener: (change: ShareChange) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  get size(): number {
    return this.listeners.size;
  }

  emit(change: ShareChange): void {
    for (const listener of [...this.listeners]) listener(change);
  }

  clear(): void {
    this.listeners.clear();
  }
}

/** A share as a row of either store (SQLite and PostgreSQL use the same columns; times in epoch ms once parsed). */
type ShareRow = {
  share_id: string;
  session_id: string;
  workspace_root: string;
  title: string;
  mode: ShareRecord["mode"];
  pinned_message_uuid: string | null;
  created_at: number;
  expires_at: number;
  revoked_at: number | null;
  last_access_at: number | null;
  view_count: number;
};

export function shareRecordFromRow(row: ShareRow): ShareRecord {
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
