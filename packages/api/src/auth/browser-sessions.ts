import type Database from "better-sqlite3";
import { z } from "zod";
import { openVersionedDatabase } from "../sqlite/versioned-database.ts";
import {
  DEFAULT_BROWSER_SESSION_TTL_MS,
  hashSecret,
  judgeBrowserSession,
  newBrowserSession,
  type BrowserSessionCheck,
  type BrowserSessionRepository,
  type BrowserSessionSecrets,
} from "./browser-session-secrets.ts";

const SCHEMA_VERSION = 1;
const SCHEMA = `
  CREATE TABLE IF NOT EXISTS browser_sessions (
    session_id TEXT PRIMARY KEY,
    cookie_hash TEXT NOT NULL UNIQUE,
    key_hash TEXT NOT NULL,
    created_at INTEGER NOT NULL,
    expires_at INTEGER NOT NULL,
    revoked_at INTEGER
  );
  CREATE TABLE IF NOT EXISTS server_names (
    name TEXT PRIMARY KEY,
    value TEXT NOT NULL
  );
`;

const rowSchema = z.object({ session_id: z.string(), key_hash: z.string(), expires_at: z.number(), revoked_at: z.number().nullable() });

export class BrowserSessionStoreError extends Error {
  override readonly name = "BrowserSessionStoreError";
  readonly code = "browser_session_schema";
}

/**
 * Browser sessions in SQLite (`$CAIRN_HOME/auth.db`): only SHA-256 hashes of the secrets are stored, so the
 * file does not sign anyone in. Sessions expire, and "sign out everywhere" revokes them all.
 */
export class BrowserSessionStore implements BrowserSessionRepository {
  private readonly db: Database.Database;
  private readonly now: () => number;
  private readonly ttlMs: number;
  private readonly revokedListeners = new Set<() => void>();

  constructor(options: { path: string; now?: () => number; ttlMs?: number }) {
    this.now = options.now ?? Date.now;
    this.ttlMs = options.ttlMs ?? DEFAULT_BROWSER_SESSION_TTL_MS;
    this.db = openVersionedDatabase(options.path, {
      version: SCHEMA_VERSION,
      schema: SCHEMA,
      schemaError: (found) => new BrowserSessionStoreError(`${options.path} has auth schema ${String(found)}; this Cairn knows ${SCHEMA_VERSION}`),
    });
  }

  /** A new signed-in browser (at login). Expired and revoked rows are dropped on the way. */
  async create(): Promise<BrowserSessionSecrets> {
    const now = this.now();
    this.db.prepare("DELETE FROM browser_sessions WHERE expires_at <= ? OR revoked_at IS NOT NULL").run(now);
    const { secrets, cookieHash, keyHash } = newBrowserSession(now, this.ttlMs);
    this.db
      .prepare("INSERT INTO browser_sessions (session_id, cookie_hash, key_hash, created_at, expires_at, revoked_at) VALUES (?, ?, ?, ?, ?, NULL)")
      .run(secrets.sessionId, cookieHash, keyHash, now, secrets.expiresAt);
    return secrets;
  }

  async check(cookie: string, key: string | undefined): Promise<BrowserSessionCheck> {
    const row = this.db.prepare("SELECT session_id, key_hash, expires_at, revoked_at FROM browser_sessions WHERE cookie_hash = ?").get(hashSecret(cookie));
    const stored = row === undefined ? undefined : rowSchema.parse(row);
    return judgeBrowserSession(
      stored && { sessionId: stored.session_id, keyHash: stored.key_hash, expiresAt: stored.expires_at, revokedAt: stored.revoked_at },
      key,
      this.now(),
    );
  }

  /** Signs every browser out; returns how many sessions were live. */
  async revokeAll(): Promise<number> {
    const now = this.now();
    const revoked = this.db.prepare("UPDATE browser_sessions SET revoked_at = ? WHERE revoked_at IS NULL AND expires_at > ?").run(now, now).changes;
    for (const listener of [...this.revokedListeners]) listener();
    return revoked;
  }

  onRevoked(listener: () => void): () => void {
    this.revokedListeners.add(listener);
    return () => this.revokedListeners.delete(listener);
  }

  /** A value made once and kept (the IDE's host name), so bookmarks and cookies survive a restart. */
  stableName(name: string, make: () => string): string {
    const row = this.db.prepare("SELECT value FROM server_names WHERE name = ?").get(name);
    const parsed = z.object({ value: z.string() }).safeParse(row);
    if (parsed.success) return parsed.data.value;
    const value = make();
    this.db.prepare("INSERT INTO server_names (name, value) VALUES (?, ?)").run(name, value);
    return value;
  }

  close(): void {
    if (this.db.open) this.db.close();
  }
}
