import { linearize, loadTranscriptLines, summarizeHeadAndTail } from "@cairn/core";
import { assertSessionId, type NewSession, TranscriptStoreError } from "@cairn/core/node";
import type { SessionStore, SessionStoreLocation, SessionTranscriptSink, StoredSessionSummary } from "../../session-store/session-store.ts";
import { transcriptLineText } from "../../session-store/transcript-line-text.ts";
import type { Database, Executor } from "./database.ts";
import { openPostgresSidechain, readSidechainTexts } from "./postgres-sidechains.ts";
import { appendGeneration, serialAppends, staleOwnerRefusal } from "./serial-appends.ts";

export type PostgresSessionStoreOptions = SessionStoreLocation & {
  sql: Database;
  now?: () => Date;
  /**
   * Session leases are on: each append names the lease generation this node holds (undefined: none),
   * and the statement that appends checks it against `cairn_session_leases`, so a node whose lease
   * another node has taken over (a stale owner) has its writes refused with code `fenced`.
   */
  fence?: (sessionId: string) => number | undefined;
  /** Told of each append the fence refused (logged by the node). */
  onFenced?: (sessionId: string, generation: number | undefined) => void;
};

/** What one line adds to its session's list entry. */
type LineFacts = { timestamp: string; conversation: number; title: string | null; promptTitle: string | null; firstPrompt: string | null };

/**
 * Transcripts as rows: `cairn_transcript_lines (session_id, line_no, line)`, each line the exact
 * JSONL text, numbered in append order per session by the same statement that counts it in
 * `cairn_sessions` (the session index the list reads). An append resolves once its transaction has
 * committed, so an acknowledged line survives the node.
 */
export function createPostgresSessionStore(options: PostgresSessionStoreOptions): SessionStore {
  const { sql, workspaceRoot, version } = options;
  const now = options.now ?? (() => new Date());

  const openTranscript = (sessionId: string): SessionTranscriptSink => {
    assertSessionId(sessionId);
    const text = transcriptLineText({ sessionId, cwd: workspaceRoot, version }, now);
    let created = false;
    const ensureSession = async (): Promise<void> => {
      if (created) return;
      // New here, or registered at its creation with nothing written yet: the meta line comes first.
      const inserted = await sql`
        insert into cairn_sessions (session_id, workspace, updated_at)
        values (${sessionId}, ${workspaceRoot}, ${now()})
        on conflict (session_id) do update set line_count = 0 where cairn_sessions.line_count = 0
        returning session_id`;
      if (inserted.length > 0) await appendLine(sql, sessionId, text.meta());
      created = true;
    };
    const { write, flush, close } = serialAppends(
      { closed: `Transcript of ${sessionId} is closed`, failed: `Could not append to the transcript of ${sessionId}` },
      async (line) => {
        await ensureSession();
        await appendLine(sql, sessionId, line);
      },
    );
    return {
      sessionId,
      appendMessage: (message) => write(() => text.message(message)),
      appendTombstone: (tombstoneOf, reason) => write(() => text.tombstone(tombstoneOf, reason)),
      appendHookRuns: (event, runs) => write(() => text.hookRuns(event, runs)),
      appendCheckpoint: (messageUuid, commit) => write(() => text.checkpoint(messageUuid, commit)),
      flush,
      close,
    };
  };

  const appendLine = async (executor: Executor, sessionId: string, line: string, fenced = options.fence !== undefined): Promise<void> => {
    const facts = lineFacts(line, now);
    const generation = appendGeneration(options, sessionId, fenced);
    // FOR SHARE orders the append against a takeover (which updates the lease row): whichever commits
    // first wins, and an append waiting behind a takeover re-reads the new generation and writes nothing.
    const rows = await executor`
      with lease as (
        select 1 from cairn_session_leases
        where session_id = ${sessionId} and generation = ${generation ?? 0}
        for share
      ),
      counted as (
        update cairn_sessions set
          line_count = line_count + 1,
          updated_at = ${facts.timestamp}::timestamptz,
          message_count = message_count + ${facts.conversation},
          title = coalesce(${facts.title}, title),
          prompt_title = coalesce(prompt_title, ${facts.promptTitle}),
          first_prompt = coalesce(first_prompt, ${facts.firstPrompt})
        where session_id = ${sessionId} and (${!fenced} or exists (select 1 from lease))
        returning line_count
      )
      insert into cairn_transcript_lines (session_id, line_no, line)
      select ${sessionId}, line_count, ${line} from counted
      returning line_no`;
    if (rows.length > 0) return;
    const session = await executor`select 1 from cairn_sessions where session_id = ${sessionId}`;
    if (session.length === 0) throw new TranscriptStoreError("session-not-found", `Session ${sessionId} is not in the database`);
    throw staleOwnerRefusal(options, sessionId, generation);
  };

  /** A new session holding a whole conversation, re-linked as one chain, in one transaction: a half-written one is worse than none. */
  const writeNew = async (session: Omit<NewSession, "cwd">): Promise<void> => {
    const text = transcriptLineText({ sessionId: session.sessionId, cwd: workspaceRoot, version }, now);
    const kept = new Set<string>();
    const written = [
      text.meta({
        ...(session.title ? { title: session.title } : {}),
        ...(session.forkedFrom ? { forkedFrom: session.forkedFrom } : {}),
        ...(session.importedFrom ? { importedFrom: session.importedFrom } : {}),
      }),
    ];
    for (const message of linearize(session.messages)) {
      written.push(text.message({ ...message, sessionId: session.sessionId }));
      kept.add(message.uuid);
    }
    for (const checkpoint of session.checkpoints ?? [])
      if (kept.has(checkpoint.messageUuid)) written.push(text.checkpoint(checkpoint.messageUuid, checkpoint.commit));
    await sql.begin(async (transaction) => {
      const inserted = await transaction`
        insert into cairn_sessions (session_id, workspace, updated_at) values (${session.sessionId}, ${workspaceRoot}, ${now()})
        on conflict (session_id) do nothing returning session_id`;
      if (inserted.length === 0) throw new TranscriptStoreError("session-exists", `Session ${session.sessionId} already exists`);
      for (const line of written) await appendLine(transaction, session.sessionId, line, false);
    });
  };

  const linesOf = async (sessionId: string): Promise<string[] | undefined> => {
    // A session registered at its creation holds no line yet: not stored, as in the JSONL store.
    const session = await sql`select 1 from cairn_sessions where session_id = ${sessionId} and workspace = ${workspaceRoot} and line_count > 0`;
    if (session.length === 0) return undefined;
    const rows = await sql<{ line: string }[]>`select line from cairn_transcript_lines where session_id = ${sessionId} order by line_no`;
    return rows.map((row) => row.line);
  };

  return {
    kind: "postgres",
    openTranscript,
    async load(sessionId, loadOptions = {}) {
      assertSessionId(sessionId);
      const lines = await linesOf(sessionId);
      if (lines === undefined) return undefined;
      loadOptions.signal?.throwIfAborted();
      return loadTranscriptLines(lines, { scope: loadOptions.scope ?? "all", ...(loadOptions.leafUuid ? { leafUuid: loadOptions.leafUuid } : {}) });
    },
    async lineTexts(sessionId, afterLine, afterSidechains = new Map()) {
      assertSessionId(sessionId);
      // The counts and the rows after them in one snapshot, so each count always matches the rows read.
      return sql.begin("isolation level repeatable read read only", async (transaction) => {
        const [session] = await transaction<{ line_count: string }[]>`
          select line_count from cairn_sessions where session_id = ${sessionId} and workspace = ${workspaceRoot} and line_count > 0`;
        if (!session) return undefined;
        const total = Number(session.line_count);
        const sidechains = await readSidechainTexts(transaction, sessionId, afterSidechains);
        if (total <= afterLine) return { texts: [], total, sidechains };
        const rows = await transaction<{ line: string }[]>`
          select line from cairn_transcript_lines where session_id = ${sessionId} and line_no > ${afterLine} and line_no <= ${total} order by line_no`;
        return { texts: rows.map((row) => row.line), total, sidechains };
      });
    },
    openSidechain: (sessionId, agent) =>
      openPostgresSidechain(
        {
          sql,
          workspaceRoot,
          version,
          now,
          ...(options.fence ? { fence: options.fence } : {}),
          ...(options.onFenced ? { onFenced: options.onFenced } : {}),
        },
        sessionId,
        agent,
      ),
    async register(sessionId) {
      assertSessionId(sessionId);
      await sql`
        insert into cairn_sessions (session_id, workspace, updated_at) values (${sessionId}, ${workspaceRoot}, ${now()})
        on conflict (session_id) do nothing`;
    },
    async list() {
      // Shaped in SQL (title fallback, ISO time as text) and read as rows of values: 10,000 rows come back as plain
      // strings and numbers put straight into the summaries, with no Date and no row object per session in between.
      // A session with no line yet is listed while its owner's lease is live (it was registered at its creation and
      // is gone from the list once its owner lets go of it, as from the owner's own list); a running one is marked so
      // from what the owner keeps with its lease.
      // Only the live leases are joined (found through the owner index: a few rows, not one per session ever owned).
      const rows = (await sql`
        with live as (
          select session_id, (session_state ->> 'running')::boolean as running
          from cairn_session_leases where owner is not null and expires_at > now()
        )
        select s.session_id, coalesce(s.title, s.prompt_title) as title, s.first_prompt,
               to_char(s.updated_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') as updated_at, s.message_count,
               coalesce(live.running, false) as running
        from cairn_sessions s left join live on live.session_id = s.session_id
        where s.workspace = ${workspaceRoot} and (s.line_count > 0 or live.session_id is not null)
        order by s.updated_at desc`.values()) as unknown as Array<[string, string | null, string | null, string, number, boolean]>;
      return rows.map(
        ([sessionId, title, firstPrompt, lastActivityAt, messageCount, running]): StoredSessionSummary => ({
          sessionId,
          title: title ?? undefined,
          firstPrompt: firstPrompt ?? undefined,
          lastActivityAt,
          messageCount,
          ...(running ? { running } : {}),
        }),
      );
    },
    async fork(sourceSessionId, atUuid, newSessionId) {
      assertSessionId(newSessionId);
      const lines = await linesOf(sourceSessionId);
      if (lines === undefined) throw new TranscriptStoreError("session-not-found", `No session ${sourceSessionId}`);
      const source = loadTranscriptLines(lines, { scope: "all", leafUuid: atUuid });
      await writeNew({
        sessionId: newSessionId,
        title: source.title,
        forkedFrom: { sessionId: sourceSessionId, messageUuid: atUuid },
        messages: source.messages,
        checkpoints: source.checkpoints,
      });
    },
    async writeSession(session) {
      assertSessionId(session.sessionId);
      await writeNew(session);
    },
    transcriptPath: (sessionId) => `postgres:cairn_transcript_lines/${sessionId}`,
    async close() {},
  };
}

/** A line's contribution to the session index, read with the same summariser the JSONL list uses. */
function lineFacts(line: string, now: () => Date): LineFacts {
  const summary = summarizeHeadAndTail({ head: line, headCoversFile: true, tail: "", sizeBytes: line.length });
  const isPrompt = summary.firstPrompt !== undefined;
  return {
    timestamp: summary.lastActivityAt ?? now().toISOString(),
    conversation: summary.messageEstimate,
    title: isPrompt ? null : (summary.title ?? null),
    promptTitle: isPrompt ? (summary.title ?? null) : null,
    firstPrompt: summary.firstPrompt ?? null,
  };
}
