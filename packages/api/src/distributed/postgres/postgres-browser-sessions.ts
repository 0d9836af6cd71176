import { randomBytes } from "node:crypto";
import { z } from "zod";
import {
  DEFAULT_BROWSER_SESSION_TTL_MS,
  hashSecret,
  judgeBrowserSession,
  newBrowserSession,
  type BrowserSessionRepository,
} from "../../auth/browser-session-secrets.ts";
import type { ChangeChannel } from "./change-channel.ts";
import type { Database } from "./database.ts";

/** bigint columns come back as strings: epoch milliseconds fit a double exactly. */
const epoch = z.coerce.number().int();
const rowSchema = z.object({ session_id: z.string(), key_hash: z.string(), expires_at: epoch, revoked_at: epoch.nullable() });

type PostgresBrowserSessionsOptions = { sql: Database; changes: ChangeChannel; now?: () => number; ttlMs?: number };

/**
 * Browser sign-ins in PostgreSQL (`cairn_browser_sessions`), the same rows as the embedded `auth.db`:
 * SHA-256 hashes of the cookie and the key, never the secrets. Every node checks every request against
 * the table, so a browser signed in through one node is signed in on all of them (no sticky sessions),
 * and "sign out everywhere" on one node holds on every node from the next request on; it is told to every node
 * (a `sign-out` change notice), so the streams open there for a browser signed out end too.
 */
export function createPostgresBrowserSessions(options: PostgresBrowserSessionsOptions): BrowserSessionRepository {
  const { sql, changes } = options;
  const listeners = new Set<() => void>();
  const emit = () => {
    for (const listener of [...listeners]) listener();
  };
  const now = options.now ?? Date.now;
  const ttlMs = options.ttlMs ?? DEFAULT_BROWSER_SESSION_TTL_MS;
  return {
    async create() {
      const at = now();
      const { secrets, cookieHash, keyHash } = newBrowserSession(at, ttlMs);
      await sql.begin(async (transaction) => {
        await transaction`delete from cairn_browser_sessions where expires_at <= ${at} or revoked_at is not null`;
        await transaction`
          insert into cairn_browser_sessions (session_id, cookie_hash, key_hash, created_at, expires_at)
          values (${secrets.sessionId}, ${cookieHash}, ${keyHash}, ${at}, ${secrets.expiresAt})`;
      });
      return secrets;
    },
    async check(cookie, key) {
      const [row] = await sql`
        select session_id, key_hash, expires_at, revoked_at from cairn_browser_sessions where cookie_hash = ${hashSecret(cookie)}`;
      const stored = row === undefined ? undefined : rowSchema.parse(row);
      return judgeBrowserSession(
        stored && { sessionId: stored.session_id, keyHash: stored.key_hash, expiresAt: stored.expires_at, revokedAt: stored.revoked_at },
        key,
        now(),
      );
    },
    async revokeAll() {
      const at = now();
      const revoked = await sql`update cairn_browser_sessions set revoked_at = ${at} where revoked_at is null and expires_at > ${at}`;
      // This node's streams first; the notice reaches the others (and comes back here, a harmless second re-check).
      emit();
      await changes.publish({ kind: "sign-out" }).catch(() => undefined);
      return revoked.count;
    },
    onRevoked(listener) {
      listeners.add(listener);
      const stop = changes.subscribe((change) => {
        if (change.kind === "sign-out") listener();
      });
      return () => {
        listeners.delete(listener);
        stop();
      };
    },
  };
}

/**
 * The sign-in cookie's name for the whole cluster, `cairn_session_<16 hex>`: the same on every node (an
 * embedded server names it after its port, which differs between nodes behind one load balancer), and
 * different for another cluster on the same host. Made by the first node that asks, kept in `cairn_cluster_names`.
 */
export async function clusterCookieName(sql: Database): Promise<string> {
  const made = `cairn_session_${randomBytes(8).toString("hex")}`;
  await sql`insert into cairn_cluster_names (name, value) values ('browser_cookie', ${made}) on conflict (name) do nothing`;
  const [row] = await sql`select value from cairn_cluster_names where name = 'browser_cookie'`;
  return z.object({ value: z.string() }).parse(row).value;
}
