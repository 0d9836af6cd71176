import Database from "better-sqlite3";
import { mkdirSync } from "node:fs";
import { dirname } from "node:path";

/**
 * Opens (creating it and its folder) a SQLite file that holds data of its own, not a cache: WAL, a 5 s
 * busy wait, and `schema` applied under `user_version`. A file of another schema version is refused with
 * `schemaError(found)`, never rewritten; the database is closed again when anything fails.
 */
export function openVersionedDatabase(
  path: string,
  options: { version: number; schema: string; schemaError: (foundVersion: unknown) => Error },
): Database.Database {
  mkdirSync(dirname(path), { recursive: true });
  const db = new Database(path);
  try {
    db.pragma("journal_mode = WAL");
    db.pragma("busy_timeout = 5000");
    const version = db.pragma("user_version", { simple: true });
    if (version !== 0 && version !== options.version) throw options.schemaError(version);
    db.exec(options.schema);
    db.pragma(`user_version = ${options.version}`);
    return db;
  } catch (error) {
    db.close();
    throw error;
  }
}
