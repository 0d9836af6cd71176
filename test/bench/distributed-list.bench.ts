// Listing 10,000 sessions from PostgreSQL (issue 14): the session index one API node reads for the
// session list. A private PostgreSQL is filled with 10,000 sessions of one workspace in one statement;
// then the store's list and the IDE's session.list (over HTTP, with the node's live sessions merged in)
// are timed, each the median of repeated runs after one warm-up.
import { mkdir, mkdtemp, realpath, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { startServer } from "@cairn/api";
import { startPrivatePostgres } from "@cairn/api/distributed-testing";
import postgres from "postgres";
import { median, percentile, report } from "./report.ts";

const SESSIONS = 10_000;
const RUNS = 15;

export default async function run(): Promise<void> {
  const database = await startPrivatePostgres();
  const parent = await realpath(await mkdtemp(join(tmpdir(), "cairn-bench-pg-list-")));
  const workspace = join(parent, "ws");
  await mkdir(workspace);
  await mkdir(join(parent, "home"));
  const server = await startServer({
    workspace,
    cairnHome: join(parent, "home"),
    version: "bench",
    apiKey: "bench",
    baseURL: "http://127.0.0.1:9",
    port: 0,
    webDir: null,
    checkpoints: false,
    managedSettingsPath: join(parent, "no-managed-settings.json"),
    distributed: { databaseUrl: database.url, redisUrl: undefined, workerUrls: [], nodeId: "bench-node" },
  });
  const sql = postgres(database.url, { max: 1, onnotice: () => undefined });
  try {
    await sql`
      insert into cairn_sessions (session_id, workspace, title, first_prompt, created_at, updated_at, message_count, line_count)
      select 'bench-' || n, ${server.runtime.workspaceRoot}, 'Session number ' || n, 'Fix the failing test number ' || n,
             now() - (n || ' seconds')::interval, now() - (n || ' seconds')::interval, 12, 14
      from generate_series(1, ${SESSIONS}) as n`;
    await sql`analyze cairn_sessions`;

    const storeTimes: number[] = [];
    for (let index = 0; index <= RUNS; index++) {
      const started = performance.now();
      const listed = await server.runtime.transcripts.list();
      if (listed.length !== SESSIONS) throw new Error(`listed ${listed.length} sessions, expected ${SESSIONS}`);
      if (index > 0) storeTimes.push(performance.now() - started);
    }
    const apiTimes: number[] = [];
    for (let index = 0; index <= RUNS; index++) {
      const started = performance.now();
      const response = await fetch(`${server.url}/api/trpc/session.list`, { headers: { authorization: `Bearer ${server.token}` } });
      const body = (await response.json()) as { result?: { data: unknown[] } };
      if (body.result?.data.length !== SESSIONS) throw new Error(`session.list answered ${body.result?.data.length} sessions`);
      if (index > 0) apiTimes.push(performance.now() - started);
    }
    report("distributed.list_10k_sessions_store_ms", median(storeTimes), "ms");
    report("distributed.list_10k_sessions_store_p90_ms", percentile(storeTimes, 90), "ms");
    report("distributed.list_10k_sessions_api_ms", median(apiTimes), "ms");
  } finally {
    await sql.end();
    await server.close();
    await database.stop();
    await rm(parent, { recursive: true, force: true });
  }
}
