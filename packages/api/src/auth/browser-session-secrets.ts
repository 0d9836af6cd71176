import { createHash, randomBytes, randomUUID, timingSafeEqual } from "node:crypto";

/** How long a browser stays signed in after opening the printed link (30 days). */
export const DEFAULT_BROWSER_SESSION_TTL_MS = 30 * 24 * 60 * 60 * 1000;

/**
 * A signed-in browser holds two secrets. The cookie travels with every request to the host, whatever
 * the port; the key lives in the origin's localStorage (scheme, host and port) and the page sends it in a
 * header. Only both together open the API, so a cookie that reaches another port is worth nothing there.
 */
export type BrowserSessionSecrets = { sessionId: string; cookie: string; key: string; expiresAt: number };

/** What a presented cookie (and key) amount to. */
export type BrowserSessionCheck = { kind: "valid"; sessionId: string; expiresAt: number } | { kind: "key_mismatch" } | { kind: "unknown" };

/**
 * Where browser sign-ins are kept: the node's SQLite `auth.db` when embedded, PostgreSQL in distributed
 * mode (so a browser signed in on one API node is signed in on all of them, and a revoke holds on all).
 * Only SHA-256 hashes of the secrets are stored.
 */
export interface BrowserSessionRepository {
  /** A new signed-in browser (at login). */
  create(): Promise<BrowserSessionSecrets>;
  /**
   * Looks the cookie up by its hash. With `key` undefined only the cookie is checked (page loads, which
   * cannot carry a header); otherwise the key must match the one issued with the cookie.
   */
  check(cookie: string, key: string | undefined): Promise<BrowserSessionCheck>;
  /** Signs every browser out; returns how many sessions were live. */
  revokeAll(): Promise<number>;
  /**
   * Calls `listener` after a sign-out everywhere, made here or (where the sign-ins are shared) on another node,
   * so streams opened by a browser signed out since are ended. Returns the unsubscribe.
   */
  onRevoked(listener: () => void): () => void;
}

/** The stored form of one sign-in. */
type StoredBrowserSession = { sessionId: string; keyHash: string; expiresAt: number; revokedAt: number | null };

/** Fresh secrets for a sign-in made at `now`, and the hashes to store for them. */
export function newBrowserSession(now: number, ttlMs: number): { secrets: BrowserSessionSecrets; cookieHash: string; keyHash: string } {
  const secrets = { sessionId: randomUUID(), cookie: randomSecret(), key: randomSecret(), expiresAt: now + ttlMs };
  return { secrets, cookieHash: hashSecret(secrets.cookie), keyHash: hashSecret(secrets.key) };
}

/** What the stored row found by the cookie's hash (or none) says about the presented key at `now`. */
export function judgeBrowserSession(stored: StoredBrowserSession | undefined, key: string | undefined, now: number): BrowserSessionCheck {
  if (stored === undefined || stored.revokedAt !== null || stored.expiresAt <= now) return { kind: "unknown" };
  if (key !== undefined && !hashesEqual(hashSecret(key), stored.keyHash)) return { kind: "key_mismatch" };
  return { kind: "valid", sessionId: stored.sessionId, expiresAt: stored.expiresAt };
}

function randomSecret(): string {
  return randomBytes(32).toString("base64url");
}

export function hashSecret(secret: string): string {
  return createHash("sha256").update(secret, "utf8").digest("hex");
}

function hashesEqual(left: string, right: string): boolean {
  const a = Buffer.from(left, "hex");
  const b = Buffer.from(right, "hex");
  return a.length === b.length && timingSafeEqual(a, b);
}
