import type { Database } from "./database.ts";

/** One schema change. Versions only grow; an applied migration is never edited, a new one is added. */
type Migration = { version: number; name: string; statements: readonly string[] };

/**
 * Cairn's schema, in order. Transcript lines are kept as the exact JSONL text (not jsonb, which
 * would reorder keys), so an export is byte for byte what the JSONL store would have written.
 */
export const MIGRATIONS: readonly Migration[] = [
  {
    version: 1,
    name: "sessions and transcript lines",
    statements: [
      `create table cairn_sessions (
         session_id text primary key,
         workspace text not null,
         title text,
         prompt_title text,
         first_prompt text,
         created_at timestamptz not null default now(),
         updated_at timestamptz not null default now(),
         message_count integer not null default 0,
         line_count bigint not null default 0
       )`,
      "create index cairn_sessions_by_workspace on cairn_sessions (workspace, updated_at desc)",
      `create table cairn_transcript_lines (
         session_id text not null references cairn_sessions (session_id) on delete cascade,
         line_no bigint not null,
         line text not null,
         primary key (session_id, line_no)
       )`,
    ],
  },
  {
    version: 2,
    name: "session leases",
    statements: [
      // One row per session that a node has ever owned. The generation only grows: it is the fencing
      // token every transcript append checks. owner is null once released; expires_at is on the database's clock.
      `create table cairn_session_leases (
         session_id text primary key,
         owner text,
         generation bigint not null,
         expires_at timestamptz not null
       )`,
      "create index cairn_session_leases_by_owner on cairn_session_leases (owner)",
    ],
  },
  {
    version: 3,
    name: "shares, trust, UI settings and worker assignments",
    statements: [
      // Share links: the SHA-256 of the token only, as in the embedded SQLite store; times in epoch milliseconds.
      `create table cairn_shares (
         share_id text primary key,
         token_hash text not null unique,
         session_id text not null,
         workspace_root text not null,
         title text not null,
         mode text not null check (mode in ('live', 'snapshot')),
         pinned_message_uuid text,
         created_at bigint not null,
         expires_at bigint not null,
         revoked_at bigint,
         last_access_at bigint,
         view_count integer not null default 0
       )`,
      "create index cairn_shares_by_workspace on cairn_shares (workspace_root, created_at desc)",
      `create table cairn_trusted_workspaces (
         workspace_root text primary key,
         trusted_at timestamptz not null default now(),
         trusted_by_node text not null
       )`,
      // The local settings layer the IDE writes (Claude Code's .claude/settings.local.json), as its JSON text.
      `create table cairn_local_settings (
         workspace_root text primary key,
         settings text not null,
         updated_at timestamptz not null default now()
       )`,
      `create table cairn_workspace_workers (
         workspace_root text primary key,
         worker_url text not null,
         worker_workspace text not null,
         assigned_at timestamptz not null default now(),
         assigned_by_node text not null
       )`,
    ],
  },
  {
    version: 4,
    name: "session state carried across takeovers",
    statements: [
      // What the owner of a session keeps here for the node that takes it over: its permission mode,
      // model and the permission questions waiting for an answer (JSON, written under the lease's generation).
      "alter table cairn_session_leases add column session_state jsonb",
    ],
  },
  {
    version: 5,
    name: "browser sign-ins shared by every node",
    statements: [
      // As in the embedded auth.db: SHA-256 hashes of the cookie and the key only; times in epoch milliseconds.
      `create table cairn_browser_sessions (
         session_id text primary key,
         cookie_hash text not null unique,
         key_hash text not null,
         created_at bigint not null,
         expires_at bigint not null,
         revoked_at bigint
       )`,
      // Values made once for the whole cluster (the sign-in cookie's name), so every node agrees on them.
      `create table cairn_cluster_names (
         name text primary key,
         value text not null
       )`,
    ],
  },
  {
    version: 6,
    name: "the cluster's access token",
    statements: [
      // Each access token a node started with, as an scrypt hash under a salt made once for the cluster (never the
      // token). A node started with a new token marks the others replaced: nodes still holding one refuse it.
      `create table cairn_access_tokens (
         token_hash text primary key,
         claimed_at bigint not null,
         replaced_at bigint
       )`,
    ],
  },
  {
    version: 7,
    name: "subagent sidechains",
    statements: [
      // A subagent run's conversation (Claude Code's subagents/agent-<id>.jsonl, with its .meta.json sidecar):
      // the exact JSONL text per line, numbered in append order per agent.
      `create table cairn_subagents (
         session_id text not null,
         agent_id text not null,
         agent_type text not null,
         description text not null,
         primary key (session_id, agent_id)
       )`,
      `create table cairn_subagent_lines (
         session_id text not null,
         agent_id text not null,
         line_no integer not null,
         line text not null,
         primary key (session_id, agent_id, line_no)
       )`,
    ],
  },
];

/** A lock id of Cairn's own: two nodes starting at once migrate one after the other. */
const MIGRATION_LOCK = 0x63_61_69_72;

/**
 * Brings the schema up to date at start: each pending migration runs in one transaction with its
 * version recorded in `cairn_migrations`, under an advisory lock. Returns the versions applied now.
 * A database newer than this Cairn (an unknown version recorded) is refused rather than guessed at.
 */
export async function migrate(sql: Database, migrations: readonly Migration[] = MIGRATIONS): Promise<number[]> {
  const applied: number[] = [];
  await sql.begin(async (transaction) => {
    await transaction`select pg_advisory_xact_lock(${MIGRATION_LOCK})`;
    await transaction`create table if not exists cairn_migrations (
      version integer primary key,
      name text not null,
      applied_at timestamptz not null default now()
    )`;
    const rows = await transaction<{ version: number }[]>`select version from cairn_migrations order by version`;
    const done = new Set(rows.map((row) => row.version));
    const known = new Set(migrations.map((migration) => migration.version));
    const unknown = [...done].filter((version) => !known.has(version));
    if (unknown.length > 0) {
      throw new Error(`The database has schema version ${Math.max(...unknown)}, newer than this Cairn knows (${Math.max(...known)}); upgrade Cairn`);
    }
    for (const migration of [...migrations].sort((left, right) => left.version - right.version)) {
      if (done.has(migration.version)) continue;
      for (const statement of migration.statements) await transaction.unsafe(statement);
      await transaction`insert into cairn_migrations (version, name) values (${migration.version}, ${migration.name})`;
      applied.push(migration.version);
    }
  });
  return applied;
}
