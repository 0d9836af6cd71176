import postgres from "postgres";

export type Database = postgres.Sql;
/** The pool or an open transaction: either runs a statement. */
export type Executor = postgres.Sql | postgres.TransactionSql;

export type OpenDatabaseOptions = {
  /** Connections in the pool (default 10). */
  max?: number;
  /** Shown in pg_stat_activity: which node holds the connection. */
  applicationName?: string;
  /** Seconds before a connection attempt gives up (default 10). */
  connectTimeoutSeconds?: number;
};

/**
 * A pool of connections to PostgreSQL. `postgres` (porsager) reconnects by itself: a query issued
 * while the server is away waits for a new connection or fails with a connection error, and the
 * next one tries again. Every statement is a tagged template, so values always travel as parameters.
 */
export function openDatabase(url: string, options: OpenDatabaseOptions = {}): Database {
  return postgres(url, {
    max: options.max ?? 10,
    connect_timeout: options.connectTimeoutSeconds ?? 10,
    idle_timeout: 60,
    onnotice: () => undefined,
    connection: { application_name: options.applicationName ?? "cairn" },
    // Rows come back as written: timestamps as ISO strings are produced in SQL where needed.
    transform: { undefined: null },
  });
}
