import type Database from "better-sqlite3";
import { createHash, randomBytes, randomUUID, timingSafeEqual } from "node:crypto";
import { z } from "zod";
import { openVersionedDatabase } from "../sqlite/versioned-database.ts";

/** How long a browser stays signed in after opening the printed link (30 days). */
const DEFAULT_BROWSER_SESSION_TTL_MS = 30 * 24 * 60 * 60 * 1000;

/**
 * A signed-in browser holds two secrets. The cookie travels with every request to the host, whatever
 * the port; the key lives in the origin's localStorage (scheme, host and port) and the page sends it in a
 * header. Only both together open the API, so a cookie that reaches another port is worth nothing there.
 */
type BrowserSessionSecrets = { sessionId: string; cookie: string; key: string; expiresAt: number };

/** What a presented cookie (and key) amount to. */
type BrowserSessionCheck = { kind: "valid"; sessionId: string; expiresAt: number } | { kind: "key_mismatch" } | { kind: "unknown" };

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
export class BrowserSessionStore {
  private readonly db: Database.Database;
  private readonly now: () => number;
  private readonly ttlMs: number;

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
  create(): BrowserSessionSecrets {
    const now = this.now();
    this.db.prepare("DELETE FROM browser_sessions WHERE expires_at <= ? OR revoked_at IS NOT NULL").run(now);
    const secrets = { sessionId: randomUUID(), cookie: randomSecret(), key: randomSecret(), expiresAt: now + this.ttlMs };
    this.db
      .prepare("INSERT INTO browser_sessions (session_id, cookie_hash, key_hash, created_at, expires_at, revoked_at) VALUES (?, ?, ?, ?, ?, NULL)")
      .run(secrets.sessionId, hashSecret(secrets.cookie), hashSecret(secrets.key), now, secrets.expiresAt);
    return secrets;
  }

  /**
   * Looks the cookie up by its hash. With `key` undefined only the cookie is checked (page loads, which
   * cannot carry a header); otherwise the key must match the one issued with the cookie.
   */
  check(cookie: string, key: string | undefined): BrowserSessionCheck {
    const row = this.db.prepare("SELECT session_id, key_hash, expires_at, revoked_at FROM browser_sessions WHERE cookie_hash = ?").get(hashSecret(cookie));
    if (row === undefined) return { kind: "unknown" };
    const session = rowSchema.parse(row);
    if (session.revoked_at !== null || session.expires_at <= this.now()) return { kind: "unknown" };
    if (key !== undefined && !hashesEqual(hashSecret(key), session.key_hash)) return { kind: "key_mismatch" };
    return { kind: "valid", sessionId: session.session_id, expiresAt: session.expires_at };
  }

  /** Signs every browser out; returns how many sessions were live. */
  revokeAll(): number {
    const now = this.now();
    return this.db.prepare("UPDATE browser_sessions SET revoked_at = ? WHERE revoked_at IS NULL AND expires_at > ?").run(now, now).changes;
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

function randomSecret(): string {
  return randomBytes(32).toString("base64url");
}

function hashSecret(secret: string): string {
  return createHash("sha256").update(secret, "utf8").digest("hex");
}

function hashesEqual(left: string, right: string): boolean {
  const a = Buffer.from(left, "hex");
  const b = Buffer.from(right, "hex");
  return a.length === b.length && timingSafeEqual(a, b);
}
