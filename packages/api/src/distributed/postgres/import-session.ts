import type { NewSession } from "@cairn/core/node";
import { redactUrl } from "../distributed-config.ts";
import { openDatabase } from "./database.ts";
import { migrate } from "./migrations.ts";
import { createPostgresSessionStore } from "./postgres-session-store.ts";

/**
 * Writes an imported session (`cairn transcript import` with a database) as rows of the workspace it records,
 * where the nodes of the cluster list and open it; the schema is brought up to date first, as a node does at start.
 * Returns where it went (for the command's report).
 */
export async function writeSessionToPostgres(databaseUrl: string, session: NewSession, version: string): Promise<string> {
  const sql = openDatabase(databaseUrl, { max: 1, applicationName: "cairn transcript import" });
  try {
    await migrate(sql).catch((error: unknown) => {
      throw new Error(`PostgreSQL at ${redactUrl(databaseUrl)}: ${(error as Error).message}`, { cause: error });
    });
    const store = createPostgresSessionStore({ sql, cairnHome: "", workspaceRoot: session.cwd, version });
    await store.writeSession(session);
    return store.transcriptPath(session.sessionId);
  } finally {
    await sql.end({ timeout: 5 });
  }
}
