import type { TranscriptSink } from "@cairn/core";
import { assertSessionId } from "@cairn/core/node";
import type { SidechainAgent, SidechainTexts } from "../../session-store/session-store.ts";
import { transcriptLineText } from "../../session-store/transcript-line-text.ts";
import type { Database, Executor } from "./database.ts";
import { type AppendFence, appendGeneration, serialAppends, staleOwnerRefusal } from "./serial-appends.ts";

/** `fence`: the lease generation this node holds for a session (leases on): a stale owner's subagent writes nothing either. */
type SidechainOptions = AppendFence & {
  sql: Database;
  workspaceRoot: string;
  version: string;
  now: () => Date;
};

/**
 * A subagent run's sidechain as rows (`cairn_subagent_lines`), the same lines the JSONL store writes to
 * `subagents/agent-<id>.jsonl` (a meta line, then the conversation), with the sidecar's agent type and description in
 * `cairn_subagents`. Each append commits before it resolves and, with leases on, names the session's lease generation
 * in the same statement, as the session's own lines do.
 */
export function openPostgresSidechain(options: SidechainOptions, sessionId: string, agent: SidechainAgent): { sink: TranscriptSink; path: string } {
  assertSessionId(sessionId);
  assertSessionId(agent.agentId);
  const { sql } = options;
  const text = transcriptLineText({ sessionId, cwd: options.workspaceRoot, version: options.version }, options.now);
  let started = false;

  const append = async (line: string): Promise<void> => {
    const generation = appendGeneration(options, sessionId);
    // FOR SHARE orders the append against a takeover, as for the session's own lines (postgres-session-store.ts).
    const rows = await sql`
      with lease as (
        select 1 from cairn_session_leases where session_id = ${sessionId} and generation = ${generation ?? 0} for share
      )
      insert into cairn_subagent_lines (session_id, agent_id, line_no, line)
      select ${sessionId}, ${agent.agentId},
             coalesce((select max(line_no) from cairn_subagent_lines where session_id = ${sessionId} and agent_id = ${agent.agentId}), 0) + 1,
             ${line}
      where ${options.fence === undefined} or exists (select 1 from lease)
      returning line_no`;
    if (rows.length === 0) throw staleOwnerRefusal(options, sessionId, generation);
  };

  const { write, flush, close } = serialAppends(
    { closed: `Sidechain ${agent.agentId} of ${sessionId} is closed`, failed: `Could not append to sidechain ${agent.agentId} of ${sessionId}` },
    async (line) => {
      if (!started) {
        await sql`
          insert into cairn_subagents (session_id, agent_id, agent_type, description)
          values (${sessionId}, ${agent.agentId}, ${agent.agentType}, ${agent.description})
          on conflict (session_id, agent_id) do nothing`;
        await append(text.meta());
        started = true;
      }
      await append(line);
    },
  );

  return {
    path: `postgres:cairn_subagent_lines/${sessionId}/${agent.agentId}`,
    sink: {
      sessionId,
      appendMessage: (message) => write(() => text.message(message)),
      appendTombstone: (tombstoneOf, reason) => write(() => text.tombstone(tombstoneOf, reason)),
      appendHookRuns: (event, runs) => write(() => text.hookRuns(event, runs)),
      flush,
      close,
    },
  };
}

/**
 * The session's sidechains (in one snapshot with its own lines: `executor` is that transaction): each one's rows after
 * the count in `after` (all rows for an agent not named), its row count and its description, by agent id.
 */
export async function readSidechainTexts(executor: Executor, sessionId: string, after: ReadonlyMap<string, number>): Promise<SidechainTexts[]> {
  const agents = await executor<{ agent_id: string; description: string; total: number }[]>`
    select a.agent_id, a.description, coalesce(max(l.line_no), 0)::int as total
    from cairn_subagents a left join cairn_subagent_lines l on l.session_id = a.session_id and l.agent_id = a.agent_id
    where a.session_id = ${sessionId}
    group by a.agent_id, a.description
    order by a.agent_id`;
  const unread = agents.filter((agent) => agent.total > (after.get(agent.agent_id) ?? 0));
  const texts = new Map<string, string[]>(agents.map((agent) => [agent.agent_id, []]));
  if (unread.length > 0) {
    const rows = await executor<{ agent_id: string; line: string }[]>`
      select l.agent_id, l.line
      from cairn_subagent_lines l
      join unnest(${unread.map((agent) => agent.agent_id)}::text[], ${unread.map((agent) => after.get(agent.agent_id) ?? 0)}::int[]) as held(agent_id, held)
        on held.agent_id = l.agent_id
      where l.session_id = ${sessionId} and l.line_no > held.held
      order by l.agent_id, l.line_no`;
    for (const row of rows) texts.get(row.agent_id)?.push(row.line);
  }
  return agents.map((agent) => ({
    agentId: agent.agent_id,
    description: agent.description || undefined,
    texts: texts.get(agent.agent_id) ?? [],
    total: agent.total,
  }));
}
