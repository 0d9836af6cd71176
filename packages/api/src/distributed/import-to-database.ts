import type { NewSession } from "@cairn/core/node";

/**
 * An imported session written to PostgreSQL (distributed mode) instead of a JSONL file. The client is loaded
 * only here, when a database is configured: importing `@cairn/api` loads no distributed code.
 */
export async function importSessionToDatabase(databaseUrl: string, session: NewSession, version: string): Promise<string> {
  return (await import("./postgres/import-session.ts")).writeSessionToPostgres(databaseUrl, session, version);
}
