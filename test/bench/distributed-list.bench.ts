// Listing 10,000 sessions from PostgreSQL (issue 14): the session index one API node reads for the
// session list. A private PostgreSQL is filled with 10,000 sessions of one workspace in one statement;
// then the store's list and the IDE's session.list (over HTTP, with the node's live sessions merged in)
// are timed, each the median of repeated runs after one warm-up. On a shared machine the wall time is mostly
// waiting for a core, so the profile is printed too: the node's CPU per list (postgres.js reading 10,000 rows and
// mapping them), PostgreSQL's own execution time of the statement (EXPLAIN ANALYZE), the best wall time, the node's CPU
// per session.list over HTTP (the store's list, the live sessions merged in, tRPC's JSON response; the client's parse
// of it excluded) and the load average.
import { mkdir, mkdtemp, realpath, rm } from "node:fs/promises";
import { loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { startServer } from "@cairn/api";
import { startPrivatePostgres } from "@cairn/api/distributed-testing";
import postgres from "postgres";
import { median, percentile, report } from "./report.ts";
import { localWorkerScript } from "../support/cli.ts";

const SESSIONS = 10_000;
const RUNS = 15;

export default async function run(): Promise<void> {
  const database = await startPrivatePostgres();
  const parent = await realpath(await mkdtemp(join(tmpdir(), "cairn-bench-pg-list-")));
  const workspace = join(parent, "ws");
  await mkdir(workspace);
  await mkdir(join(parent, "home"));
  const server = await startServer({
    workerScript: localWorkerScript,
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
    const storeCpu: number[] = [];
    for (let index = 0; index <= RUNS; index++) {
      const cpuBefore = process.cpuUsage();
      const started = performance.now();
      const listed = await server.runtime.transcripts.list();
      if (listed.length !== SESSIONS) throw new Error(`listed ${listed.length} sessions, expected ${SESSIONS}`);
      const cpu = process.cpuUsage(cpuBefore);
      if (index > 0) storeTimes.push(performance.now() - started);
      if (index > 0) storeCpu.push((cpu.user + cpu.system) / 1000);
    }
    const executionTimes: number[] = [];
    for (let index = 0; index < 5; index++) executionTimes.push(await executionMs(sql, server.runtime.workspaceRoot));
    const apiTimes: number[] = [];
    const apiCpu: number[] = [];
    for (let index = 0; index <= RUNS; index++) {
      const cpuBefore = process.cpuUsage();
      const started = performance.now();
      const response = await fetch(`${server.url}/api/trpc/session.list`, { headers: { authorization: `Bearer ${server.token}` } });
      const text = await response.text();
      const elapsed = performance.now() - started;
      // The node's CPU (this process serves the request): the client's parse below is a browser's work, not counted.
      const cpu = process.cpuUsage(cpuBefore);
      const body = JSON.parse(text) as { result?: { data: unknown[] } };
      if (body.result?.data.length !== SESSIONS) throw new Error(`session.list answered ${body.result?.data.length} sessions`);
      if (index > 0) apiTimes.push(elapsed);
      if (index > 0) apiCpu.push((cpu.user + cpu.system) / 1000);
    }
    report("distributed.list_10k_sessions_store_ms", median(storeTimes), "ms");
    report("distributed.list_10k_sessions_store_p90_ms", percentile(storeTimes, 90), "ms");
    report("distributed.list_10k_sessions_store_best_ms", Math.min(...storeTimes), "ms");
    report("distributed.list_10k_sessions_node_cpu_ms", median(storeCpu), "ms");
    report("distributed.list_10k_sessions_pg_execution_ms", median(executionTimes), "ms");
    report("distributed.list_10k_sessions_api_ms", median(apiTimes), "ms");
    report("distributed.list_10k_sessions_api_best_ms", Math.min(...apiTimes), "ms");
    report("distributed.list_10k_sessions_api_node_cpu_ms", median(apiCpu), "ms");
    report("distributed.load_average", loadavg()[0]!, "load");
  } finally {
    await sql.end();
    await server.close();
    await database.stop();
    await rm(parent, { recursive: true, force: true });
  }
}

/** PostgreSQL's execution time of the list's statement (the same text as the store's), from EXPLAIN ANALYZE. */
async function executionMs(sql: postgres.Sql, workspaceRoot: string): Promise<number> {
  const plan = await sql.unsafe<{ "QUERY PLAN": string }[]>(
    `explain analyze select session_id, coalesce(title, prompt_title) as title, first_prompt,
            to_char(updated_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') as updated_at, message_count
     from cairn_sessions where workspace = $1 order by cairn_sessions.updated_at desc`,
    [workspaceRoot],
  );
  const line = plan.map((row) => row["QUERY PLAN"]).find((text) => text.startsWith("Execution Time:"));
  const match = /Execution Time: ([\d.]+) ms/.exec(line ?? "");
  if (!match?.[1]) throw new Error(`no execution time in the plan: ${JSON.stringify(plan)}`);
  return Number(match[1]);
}
