import type { Database } from "./database.ts";

/** A session's lease as the database holds it. `expired` is judged on the database's clock, so nodes' clocks may differ. */
export type LeaseRecord = { sessionId: string; owner: string | null; generation: number; expired: boolean };

/** What an acquire got: the lease (with its new generation, the fencing token), or who holds it now. */
export type AcquireResult =
  | { acquired: true; generation: number; previousOwner: string | null; state: unknown }
  | { acquired: false; owner: string | null; generation: number; expired: boolean };

export type SessionLeaseStore = {
  /**
   * Takes the session's lease for `nodeId` when nobody holds it, it was released or it has expired:
   * the generation goes up by one. A lease held by a live owner (this node id included) is left alone.
   */
  acquire(sessionId: string, nodeId: string): Promise<AcquireResult>;
  /** Extends the leases `nodeId` still holds at these generations; answers the ones it still holds. */
  renew(nodeId: string, held: ReadonlyArray<{ sessionId: string; generation: number }>): Promise<Set<string>>;
  /** Gives the lease up (owner cleared, expired now); the generation stays, so fencing still holds. */
  release(sessionId: string, nodeId: string, generation: number): Promise<void>;
  read(sessionIds: readonly string[]): Promise<LeaseRecord[]>;
  /**
   * Keeps `state` (JSON) with the lease for the node that takes the session over next; written only
   * while `nodeId` holds it at `generation`. True when it was written.
   */
  saveState(sessionId: string, nodeId: string, generation: number, state: unknown): Promise<boolean>;
};

/**
 * Session leases in PostgreSQL (`cairn_session_leases`): one row per session, the owner node, a
 * generation that only grows (the fencing token the transcript append checks in the same statement),
 * and an expiry on the database's clock that the owner pushes forward while it holds the session.
 * PostgreSQL rather than Redis because the transcript lives there: the append and the generation it
 * is checked against are in one transaction, with row locks ordering an append against a takeover.
 */
export function createSessionLeaseStore(sql: Database, options: { ttlMs: number }): SessionLeaseStore {
  const ttl = `${Math.max(1, Math.round(options.ttlMs))} milliseconds`;
  const read = async (sessionIds: readonly string[]): Promise<LeaseRecord[]> => {
    if (sessionIds.length === 0) return [];
    const rows = await sql<{ session_id: string; owner: string | null; generation: string; expired: boolean }[]>`
      select session_id, owner, generation, (owner is null or expires_at <= now()) as expired
      from cairn_session_leases where session_id = any(${sessionIds}::text[])`;
    return rows.map((row) => ({ sessionId: row.session_id, owner: row.owner, generation: Number(row.generation), expired: row.expired }));
  };
  return {
    read,
    async acquire(sessionId, nodeId) {
      const rows = await sql<{ generation: string; previous_owner: string | null; session_state: unknown }[]>`
        with previous as (select owner from cairn_session_leases where session_id = ${sessionId})
        insert into cairn_session_leases as lease (session_id, owner, generation, expires_at)
        values (${sessionId}, ${nodeId}, 1, now() + ${ttl}::interval)
        on conflict (session_id) do update set owner = excluded.owner, generation = lease.generation + 1, expires_at = excluded.expires_at
          where lease.owner is null or lease.expires_at <= now()
        returning generation, (select owner from previous) as previous_owner, session_state`;
      const row = rows[0];
      if (row) return { acquired: true, generation: Number(row.generation), previousOwner: row.previous_owner, state: row.session_state ?? null };
      const [current] = await read([sessionId]);
      // Released between the two statements: the caller asks again.
      return current
        ? { acquired: false, owner: current.owner, generation: current.generation, expired: current.expired }
        : { acquired: false, owner: null, generation: 0, expired: true };
    },
    async renew(nodeId, held) {
      if (held.length === 0) return new Set();
      const rows = await sql<{ session_id: string }[]>`
        update cairn_session_leases as lease set expires_at = now() + ${ttl}::interval
        from unnest(${held.map((entry) => entry.sessionId)}::text[], ${held.map((entry) => entry.generation)}::bigint[]) as mine (session_id, generation)
        where lease.session_id = mine.session_id and lease.generation = mine.generation and lease.owner = ${nodeId}
        returning lease.session_id`;
      return new Set(rows.map((row) => row.session_id));
    },
    async saveState(sessionId, nodeId, generation, state) {
      const rows = await sql`
        update cairn_session_leases set session_state = ${sql.json(state as Parameters<typeof sql.json>[0])}
        where session_id = ${sessionId} and owner = ${nodeId} and generation = ${generation}
        returning session_id`;
      return rows.length > 0;
    },
    async release(sessionId, nodeId, generation) {
      await sql`
        update cairn_session_leases set owner = null, expires_at = now()
        where session_id = ${sessionId} and owner = ${nodeId} and generation = ${generation}`;
    },
  };
}
