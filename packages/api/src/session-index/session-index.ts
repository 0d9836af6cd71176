import { z } from "zod";
import type Database from "better-sqlite3";
import { statSync } from "node:fs";
import { setImmediate as yieldToEventLoop } from "node:timers/promises";
import { join } from "node:path";
import { listTranscriptFiles, readHeadAndTail, type SessionFileSummary, type TranscriptFile } from "@cairn/core/node";
import { projectDirName } from "@cairn/core/schema";
import { openIndexDatabase } from "./sqlite-database.ts";

/** A session as the list and search show it. The JSONL file stays the source of truth. */
export const sessionRowSchema = z.object({
  sessionId: z.string(),
  path: z.string(),
  projectDir: z.string(),
  cwd: z.string().nullable(),
  title: z.string().nullable(),
  firstPrompt: z.string().nullable(),
  createdAt: z.string().nullable(),
  updatedAt: z.string(),
  messageEstimate: z.number(),
  sizeBytes: z.number(),
  mtimeMs: z.number(),
  forkedFromSessionId: z.string().nullable(),
  imported: z.boolean(),
});
export type SessionRow = z.infer<typeof sessionRowSchema>;

export const sessionQuerySchema = z.object({
  /** Only the sessions of this working directory. */
  cwd: z.string().optional(),
  /** Case-insensitive substring of the title or first prompt. */
  search: z.string().max(500).optional(),
  limit: z.number().int().min(1).max(10_000).default(100),
  offset: z.number().int().min(0).default(0),
});
export type SessionQuery = z.input<typeof sessionQuerySchema>;

export interface RefreshReport {
  files: number;
  /** Files new or changed since the index last saw them (size or mtime), re-read head and tail. */
  reindexed: number;
  /** Rows whose file is gone. */
  removed: number;
}

/**
 * The seam for listing sessions: the embedded implementation is SQLite beside the JSONL files; a
 * multi-host deployment would put PostgreSQL behind the same interface.
 */
export interface SessionIndex {
  /** Brings the rows of `cwd`'s sessions (or all) up to date with the files: stat every file, re-read the stale. */
  refresh(options?: { cwd?: string; signal?: AbortSignal }): Promise<RefreshReport>;
  /** Refreshes the scope, then queries it. */
  list(query?: SessionQuery, options?: { signal?: AbortSignal }): Promise<SessionRow[]>;
  /** Queries the rows as they are, without looking at the files. */
  query(query?: SessionQuery): SessionRow[];
  close(): void;
}

export interface SessionIndexOptions {
  cairnHome: string;
  /** Default `$CAIRN_HOME/session-index.sqlite`. */
  dbPath?: string;
  /** Files read at once while refreshing. */
  concurrency?: number;
}

const STAT_BATCH = 512;

interface StoredRow {
  session_id: string;
  path: string;
  project_dir: string;
  cwd: string | null;
  title: string | null;
  first_prompt: string | null;
  created_at: string | null;
  updated_at: string;
  message_estimate: number;
  size_bytes: number;
  mtime_ms: number;
  forked_from: string | null;
  imported: number;
}

/** Opens (creating, migrating or rebuilding when unreadable) the SQLite session index. */
export function openSessionIndex(options: SessionIndexOptions): SessionIndex {
  const db = openIndexDatabase(options.dbPath ?? join(options.cairnHome, "session-index.sqlite"));
  const concurrency = options.concurrency ?? 16;
  const upsert = db.prepare(
    `INSERT INTO sessions (path, session_id, project_dir, cwd, title, first_prompt, created_at, updated_at,
       message_estimate, size_bytes, mtime_ms, forked_from, imported)
     VALUES (@path, @session_id, @project_dir, @cwd, @title, @first_prompt, @created_at, @updated_at,
       @message_estimate, @size_bytes, @mtime_ms, @forked_from, @imported)
     ON CONFLICT(path) DO UPDATE SET session_id = excluded.session_id, project_dir = excluded.project_dir,
       cwd = excluded.cwd, title = excluded.title, first_prompt = excluded.first_prompt,
       created_at = excluded.created_at, updated_at = excluded.updated_at,
       message_estimate = excluded.message_estimate, size_bytes = excluded.size_bytes,
       mtime_ms = excluded.mtime_ms, forked_from = excluded.forked_from, imported = excluded.imported`,
  );
  const remove = db.prepare("DELETE FROM sessions WHERE path = ?");
  const known = db.prepare<[string, string], { path: string; size_bytes: number; mtime_ms: number }>(
    "SELECT path, size_bytes, mtime_ms FROM sessions WHERE (? = '' OR project_dir = ?)",
  );
  const write = db.transaction((rows: StoredRow[], gone: string[]) => {
    for (const row of rows) upsert.run(row);
    for (const path of gone) remove.run(path);
  });

  const refresh: SessionIndex["refresh"] = async (refreshOptions = {}) => {
    const signal = refreshOptions.signal;
    const scope = refreshOptions.cwd === undefined ? "" : projectDirName(refreshOptions.cwd);
    const files = await listTranscriptFiles(options.cairnHome, refreshOptions.cwd);
    const stored = new Map(known.all(scope, scope).map((row) => [row.path, row]));
    const stale: TranscriptFile[] = [];
    // Synchronous stats in small batches: several times cheaper than one thread-pool round trip
    // per file, while still letting the event loop run between batches.
    for (let start = 0; start < files.length; start += STAT_BATCH) {
      signal?.throwIfAborted();
      if (start > 0) await yieldToEventLoop();
      for (const file of files.slice(start, start + STAT_BATCH)) {
        const stats = statSync(file.path, { throwIfNoEntry: false });
        if (stats === undefined) continue;
        const row = stored.get(file.path);
        stored.delete(file.path);
        if (row === undefined || row.size_bytes !== stats.size || row.mtime_ms !== stats.mtimeMs) stale.push(file);
      }
    }
    const rows: StoredRow[] = [];
    await inPool(stale, concurrency, signal, async (file) => {
      const summary = await readHeadAndTail(file.path, signal === undefined ? {} : { signal }).catch(() => undefined);
      if (summary !== undefined) rows.push(toStoredRow(file, summary));
    });
    signal?.throwIfAborted();
    const gone = [...stored.keys()];
    write(rows, gone);
    return { files: files.length, reindexed: rows.length, removed: gone.length };
  };

  // One statement per filter combination, so SQLite can use the (project_dir, updated_at) index.
  const selects = new Map<string, Database.Statement<unknown[], unknown[]>>();
  const selectFor = (byProject: boolean, bySearch: boolean) => {
    const key = `${byProject}:${bySearch}`;
    let statement = selects.get(key);
    if (statement === undefined) {
      const where = [
        ...(byProject ? ["project_dir = @project"] : []),
        ...(bySearch ? ["(title LIKE @pattern ESCAPE '\\' OR first_prompt LIKE @pattern ESCAPE '\\')"] : []),
      ];
      statement = db
        .prepare<unknown[], unknown[]>(
          `SELECT ${COLUMNS.join(", ")} FROM sessions ${where.length > 0 ? `WHERE ${where.join(" AND ")}` : ""}
           ORDER BY updated_at DESC, session_id LIMIT @limit OFFSET @offset`,
        )
        .raw(true);
      selects.set(key, statement);
    }
    return statement;
  };
  const query: SessionIndex["query"] = (input = {}) => {
    const parsed = sessionQuerySchema.parse(input);
    const parameters = {
      limit: parsed.limit,
      offset: parsed.offset,
      ...(parsed.cwd === undefined ? {} : { project: projectDirName(parsed.cwd) }),
      ...(parsed.search === undefined ? {} : { pattern: `%${escapeLike(parsed.search)}%` }),
    };
    return selectFor(parsed.cwd !== undefined, parsed.search !== undefined)
      .all(parameters)
      .map(fromColumns);
  };

  return {
    refresh,
    query,
    async list(input = {}, listOptions = {}) {
      await refresh({
        ...(input.cwd === undefined ? {} : { cwd: input.cwd }),
        ...(listOptions.signal === undefined ? {} : { signal: listOptions.signal }),
      });
      return query(input);
    },
    close() {
      db.close();
    },
  };
}

function toStoredRow(file: TranscriptFile, summary: SessionFileSummary): StoredRow {
  return {
    session_id: summary.sessionId,
    path: file.path,
    project_dir: file.projectDir,
    cwd: summary.cwd ?? null,
    title: summary.title ?? null,
    first_prompt: summary.firstPrompt ?? null,
    created_at: summary.createdAt ?? null,
    updated_at: summary.lastActivityAt,
    message_estimate: summary.messageEstimate,
    size_bytes: summary.sizeBytes,
    mtime_ms: summary.mtimeMs,
    forked_from: summary.forkedFrom?.sessionId ?? null,
    imported: summary.importedFrom === undefined ? 0 : 1,
  };
}

const COLUMNS = [
  "session_id",
  "path",
  "project_dir",
  "cwd",
  "title",
  "first_prompt",
  "created_at",
  "updated_at",
  "message_estimate",
  "size_bytes",
  "mtime_ms",
  "forked_from",
  "imported",
] as const;

/** A row as `raw()` returns it, in COLUMNS order; the types are the table's. */
function fromColumns(columns: unknown[]): SessionRow {
  const [sessionId, path, projectDir, cwd, title, firstPrompt, createdAt, updatedAt, messageEstimate, sizeBytes, mtimeMs, forkedFrom, imported] = columns as [
    string,
    string,
    string,
    string | null,
    string | null,
    string | null,
    string | null,
    string,
    number,
    number,
    number,
    string | null,
    number,
  ];
  return {
    sessionId,
    path,
    projectDir,
    cwd,
    title,
    firstPrompt,
    createdAt,
    updatedAt,
    messageEstimate,
    sizeBytes,
    mtimeMs,
    forkedFromSessionId: forkedFrom,
    imported: imported === 1,
  };
}

function escapeLike(text: string): string {
  return text.replace(/[\\%_]/g, (character) => `\\${character}`);
}

async function inPool<T>(items: readonly T[], size: number, signal: AbortSignal | undefined, work: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < items.length) {
      signal?.throwIfAborted();
      await work(items[next++]!);
    }
  };
  await Promise.all(Array.from({ length: Math.min(size, items.length) }, worker));
}
