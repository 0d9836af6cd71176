import Database from "better-sqlite3";
import { mkdirSync, rmSync } from "node:fs";
import { dirname } from "node:path";

/** Bump when the table changes: the index is a cache of the JSONL files, so it is rebuilt, not migrated. */
export const SESSION_INDEX_SCHEMA_VERSION = 1;

const SCHEMA = `
  CREATE TABLE sessions (
    path TEXT PRIMARY KEY,
    session_id TEXT NOT NULL,
    project_dir TEXT NOT NULL,
    cwd TEXT,
    title TEXT,
    first_prompt TEXT,
    created_at TEXT,
    updated_at TEXT NOT NULL,
    message_estimate INTEGER NOT NULL,
    size_bytes INTEGER NOT NULL,
    mtime_ms REAL NOT NULL,
    forked_from TEXT,
    imported INTEGER NOT NULL DEFAULT 0
  );
  CREATE INDEX sessions_by_update ON sessions (updated_at DESC);
  CREATE INDEX sessions_by_project ON sessions (project_dir, updated_at DESC);
  CREATE INDEX sessions_by_id ON sessions (session_id);
`;

/**
 * Opens the index database, creating the table on first use. A database of another schema
 * version, or one SQLite cannot read, is thrown away and recreated empty: the next refresh
 * rebuilds it from the transcripts.
 */
export function openIndexDatabase(path: string): Database.Database {
  mkdirSync(dirname(path), { recursive: true });
  try {
    return prepare(new Database(path));
  } catch (error) {
    if (!isUnreadableDatabase(error)) throw error;
    for (const suffix of ["", "-wal", "-shm"]) rmSync(`${path}${suffix}`, { force: true });
    return prepare(new Database(path));
  }
}

function prepare(db: Database.Database): Database.Database {
  try {
    db.pragma("journal_mode = WAL");
    db.pragma("synchronous = NORMAL");
    db.pragma("busy_timeout = 5000");
    const version = db.pragma("user_version", { simple: true });
    if (version !== SESSION_INDEX_SCHEMA_VERSION) {
      db.transaction(() => {
        db.exec("DROP TABLE IF EXISTS sessions");
        db.exec(SCHEMA);
        db.pragma(`user_version = ${SESSION_INDEX_SCHEMA_VERSION}`);
      }).immediate();
    }
    return db;
  } catch (error) {
    db.close();
    throw error;
  }
}

function isUnreadableDatabase(error: unknown): boolean {
  const code = (error as { code?: unknown }).code;
  return code === "SQLITE_NOTADB" || code === "SQLITE_CORRUPT";
}
