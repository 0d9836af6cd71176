import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { ConversationMessage } from "@cairn/core/schema";
import { createJsonlTranscriptStore, sessionTranscriptPath } from "@cairn/core/node";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createJsonlSessionStore } from "../../session-store/jsonl-session-store.ts";
import { startPrivatePostgres, type PrivateService } from "../testing/private-services.ts";
import { openDatabase, type Database } from "./database.ts";
import { migrate, MIGRATIONS } from "./migrations.ts";
import { createPostgresSessionStore } from "./postgres-session-store.ts";
import { createSessionLeaseStore } from "./session-leases.ts";

const workspaceRoot = "/work/project";
const fixedNow = () => new Date("2026-12-01T10:00:00.000Z");

function conversation(sessionId: string): ConversationMessage[] {
  const prompt: ConversationMessage = {
    type: "user",
    uuid: `${sessionId}-u1`,
    parentUuid: null,
    timestamp: "2026-12-01T10:00:01.000Z",
    message: { role: "user", content: "Fix the failing test in src/math.ts" },
  };
  const answer: ConversationMessage = {
    type: "assistant",
    uuid: `${sessionId}-a1`,
    parentUuid: prompt.uuid,
    timestamp: "2026-12-01T10:00:02.000Z",
    message: {
      id: `msg_${sessionId}`,
      type: "message",
      role: "assistant",
      model: "sim-model",
      content: [{ type: "text", text: "Done: the test passes." }],
      stop_reason: "end_turn",
      stop_sequence: null,
      usage: { input_tokens: 10, output_tokens: 5 },
    },
  };
  const next: ConversationMessage = {
    type: "user",
    uuid: `${sessionId}-u2`,
    parentUuid: answer.uuid,
    timestamp: "2026-12-01T10:00:03.000Z",
    message: { role: "user", content: "Thanks, now the README" },
  };
  return [prompt, answer, next];
}

describe("PostgreSQL session store (private PostgreSQL)", () => {
  let database: PrivateService;
  let sql: Database;
  let home: string;

  beforeAll(async () => {
    database = await startPrivatePostgres();
    sql = openDatabase(database.url);
    home = await mkdtemp(join(tmpdir(), "cairn-pg-store-"));
  }, 120_000);

  afterAll(async () => {
    await sql?.end();
    await database?.stop();
    await rm(home, { recursive: true, force: true });
  });

  it("migrates once, records the version, and two nodes migrating at once do not collide", async () => {
    const [first, second] = await Promise.all([migrate(sql), migrate(openDatabase(database.url, { max: 1 }))]);
    expect([...first, ...second]).toEqual(MIGRATIONS.map((migration) => migration.version));
    expect(await migrate(sql)).toEqual([]);
    const rows = await sql<{ version: number }[]>`select version from cairn_migrations`;
    expect(rows.map((row) => row.version)).toEqual(MIGRATIONS.map((migration) => migration.version));
  });

  it("refuses a database whose schema is newer than this Cairn", async () => {
    const other = openDatabase(database.url, { max: 1 });
    await other`create database newer`;
    await other.end();
    const newer = openDatabase(database.url.replace(/\/postgres$/, "/newer"), { max: 1 });
    try {
      await migrate(newer);
      await newer`insert into cairn_migrations (version, name) values (99, 'from the future')`;
      await expect(migrate(newer)).rejects.toThrow(/schema version 99, newer than this Cairn knows/);
    } finally {
      await newer.end();
    }
  });

  it("stores each line as the exact text the JSONL store writes, in append order", async () => {
    const store = createPostgresSessionStore({ sql, cairnHome: home, workspaceRoot, version: "1.2.3", now: fixedNow });
    const sink = store.openTranscript("same-lines");
    const file = createJsonlTranscriptStore({ cairnHome: home, cwd: workspaceRoot, sessionId: "same-lines", version: "1.2.3", fsync: "never", now: fixedNow });
    for (const message of conversation("same-lines")) {
      await sink.appendMessage(message);
      await file.appendMessage(message);
    }
    await sink.appendTombstone("gone-uuid", "stream failed");
    await file.appendTombstone("gone-uuid", "stream failed");
    await sink.appendCheckpoint("same-lines-u1", "abc123");
    await file.appendCheckpoint("same-lines-u1", "abc123");
    await sink.close();
    await file.close();
    const rows = await sql<
      { line_no: string; line: string }[]
    >`select line_no, line from cairn_transcript_lines where session_id = 'same-lines' order by line_no`;
    const fileText = await readFile(sessionTranscriptPath({ cairnHome: home, cwd: workspaceRoot, sessionId: "same-lines" }), "utf8");
    expect(rows.map((row) => `${row.line}\n`).join("")).toBe(fileText);
    expect(rows.map((row) => Number(row.line_no))).toEqual([1, 2, 3, 4, 5, 6]);
  });

  it("loads, lists and forks like the JSONL store does", async () => {
    const postgresStore = createPostgresSessionStore({ sql, cairnHome: home, workspaceRoot, version: "1.2.3" });
    const jsonlStore = createJsonlSessionStore({ cairnHome: home, workspaceRoot, version: "1.2.3" });
    for (const store of [postgresStore, jsonlStore]) {
      const sink = store.openTranscript("listed");
      for (const message of conversation("listed")) await sink.appendMessage(message);
      await sink.appendCheckpoint("listed-u1", "c0ffee");
      await sink.close();
    }
    const [fromPostgres, fromFile] = await Promise.all([postgresStore.load("listed"), jsonlStore.load("listed")]);
    expect(fromPostgres?.messages).toEqual(fromFile?.messages);
    expect(fromPostgres?.messages.map((message) => message.uuid)).toEqual(["listed-u1", "listed-a1", "listed-u2"]);
    const withoutTime = (checkpoints: ReadonlyArray<{ timestamp: string }> | undefined) => checkpoints?.map(({ timestamp: _time, ...rest }) => rest);
    expect(withoutTime(fromPostgres?.checkpoints)).toEqual(withoutTime(fromFile?.checkpoints));
    expect(fromPostgres?.checkpoints).toHaveLength(1);

    const listed = (await postgresStore.list()).find((entry) => entry.sessionId === "listed");
    const listedFile = (await jsonlStore.list()).find((entry) => entry.sessionId === "listed");
    expect(listed).toEqual({ ...listedFile, lastActivityAt: listed?.lastActivityAt });
    expect(listed).toMatchObject({ title: "Fix the failing test in src/math.ts", messageCount: 3 });
    // The last line written (the checkpoint) dates the entry, as in the JSONL list.
    expect(Math.abs(Date.parse(listed?.lastActivityAt ?? "") - Date.parse(listedFile?.lastActivityAt ?? ""))).toBeLessThan(5_000);

    await postgresStore.fork("listed", "listed-a1", "forked");
    const forked = await postgresStore.load("forked");
    expect(forked?.messages.map((message) => message.uuid)).toEqual(["listed-u1", "listed-a1"]);
    expect(forked?.meta?.forkedFrom).toEqual({ sessionId: "listed", messageUuid: "listed-a1" });
    expect(forked?.checkpoints.map((checkpoint) => checkpoint.commit)).toEqual(["c0ffee"]);
    await expect(postgresStore.fork("listed", "listed-a1", "forked")).rejects.toMatchObject({ code: "session-exists" });
  });

  it("keeps workspaces apart and answers undefined for an unknown session", async () => {
    const here = createPostgresSessionStore({ sql, cairnHome: home, workspaceRoot, version: "1" });
    const elsewhere = createPostgresSessionStore({ sql, cairnHome: home, workspaceRoot: "/work/other", version: "1" });
    expect(await elsewhere.load("listed")).toBeUndefined();
    expect((await elsewhere.list()).map((entry) => entry.sessionId)).not.toContain("listed");
    expect(await here.load("no-such-session")).toBeUndefined();
    expect(() => here.openTranscript("../escape")).toThrow(/Not a valid session id/);
  });

  it("lists the most recently active session first", async () => {
    const store = createPostgresSessionStore({ sql, cairnHome: home, workspaceRoot: "/work/ordered", version: "1" });
    for (const [sessionId, second] of [
      ["older", "01"],
      ["newer", "09"],
      ["middle", "05"],
    ] as const) {
      const sink = store.openTranscript(sessionId);
      const [prompt] = conversation(sessionId);
      if (prompt) await sink.appendMessage({ ...prompt, timestamp: `2026-12-02T00:00:${second}.000Z` });
      await sink.close();
    }
    expect((await store.list()).map((entry) => entry.sessionId)).toEqual(["newer", "middle", "older"]);
  });

  it("lists a registered session while its owner's lease is live, marked running from the lease, and writes its meta line first", async () => {
    const store = createPostgresSessionStore({ sql, cairnHome: home, workspaceRoot: "/work/registered", version: "1" });
    const leases = createSessionLeaseStore(sql, { ttlMs: 60_000 });
    const acquired = await leases.acquire("registered", "node-a");
    expect(acquired.acquired).toBe(true);
    const generation = acquired.acquired ? acquired.generation : 0;
    await store.register?.("registered");
    await store.register?.("registered");
    // Listed from its creation, with nothing stored: load still finds nothing.
    expect(await store.list()).toEqual([
      { sessionId: "registered", title: undefined, firstPrompt: undefined, lastActivityAt: expect.any(String), messageCount: 0 },
    ]);
    expect(await store.load("registered")).toBeUndefined();
    await leases.saveState("registered", "node-a", generation, { permissionMode: "default", model: "m", waitingQuestions: [], running: true });
    expect((await store.list())[0]).toMatchObject({ sessionId: "registered", running: true });
    const sink = store.openTranscript("registered");
    const [prompt] = conversation("registered");
    if (prompt) await sink.appendMessage(prompt);
    await sink.close();
    const lines = await sql<{ line: string }[]>`select line from cairn_transcript_lines where session_id = 'registered' order by line_no`;
    expect(lines.map((row) => (JSON.parse(row.line) as { type: string }).type)).toEqual(["cairn-session", "user"]);
    expect((await store.list())[0]).toMatchObject({ title: "Fix the failing test in src/math.ts", messageCount: 1, running: true });
    // The owner lets go: the running mark goes, and an empty registered session leaves the list.
    await store.register?.("abandoned");
    const other = await leases.acquire("abandoned", "node-a");
    expect((await store.list()).map((entry) => entry.sessionId).sort()).toEqual(["abandoned", "registered"]);
    await leases.release("registered", "node-a", generation);
    if (other.acquired) await leases.release("abandoned", "node-a", other.generation);
    expect(await store.list()).toEqual([expect.objectContaining({ sessionId: "registered", messageCount: 1 })]);
    expect((await store.list())[0]?.running).toBeUndefined();
  });

  it("hands out a session's line texts after a count, with the count in all (what a timeline is built from)", async () => {
    const store = createPostgresSessionStore({ sql, cairnHome: home, workspaceRoot: "/work/rows", version: "1" });
    expect(await store.lineTexts?.("rows", 0)).toBeUndefined();
    await store.register?.("rows");
    expect(await store.lineTexts?.("rows", 0)).toBeUndefined();
    const sink = store.openTranscript("rows");
    for (const message of conversation("rows")) await sink.appendMessage(message);
    await sink.close();
    const all = await store.lineTexts?.("rows", 0);
    expect(all?.total).toBe(4);
    expect(all?.texts.map((text) => (JSON.parse(text) as { type: string }).type)).toEqual(["cairn-session", "user", "assistant", "user"]);
    expect(await store.lineTexts?.("rows", 2)).toEqual({ texts: all?.texts.slice(2), total: 4, sidechains: [] });
    expect(await store.lineTexts?.("rows", 4)).toEqual({ texts: [], total: 4, sidechains: [] });
    const elsewhere = createPostgresSessionStore({ sql, cairnHome: home, workspaceRoot: "/work/other-rows", version: "1" });
    expect(await elsewhere.lineTexts?.("rows", 0)).toBeUndefined();
  });

  it("keeps a subagent's sidechain beside its session (the lines the JSONL store writes to its agent file) and hands out its rows after a count", async () => {
    const store = createPostgresSessionStore({ sql, cairnHome: home, workspaceRoot: "/work/sidechains", version: "1", now: fixedNow });
    const sink = store.openTranscript("with-agents");
    for (const message of conversation("with-agents")) await sink.appendMessage(message);
    const agent = { agentId: "a0123456789abcdef", agentType: "general-purpose", description: "Find the flaky test" };
    const opened = store.openSidechain?.("with-agents", agent);
    expect(opened?.path).toBe("postgres:cairn_subagent_lines/with-agents/a0123456789abcdef");
    const sideMessages = conversation("side").map((message) => ({ ...message, isSidechain: true, agentId: agent.agentId }));
    for (const message of sideMessages) await opened?.sink.appendMessage(message);
    await opened?.sink.close();

    // The same lines as the JSONL store's agent file (meta line, then the messages).
    const file = createJsonlTranscriptStore({
      cairnHome: home,
      cwd: "/work/sidechains",
      sessionId: "with-agents",
      version: "1",
      now: fixedNow,
      path: join(home, "agent.jsonl"),
    });
    for (const message of sideMessages) await file.appendMessage(message);
    await file.close();
    const fileLines = (await readFile(join(home, "agent.jsonl"), "utf8")).trimEnd().split("\n");

    const all = await store.lineTexts?.("with-agents", 0);
    expect(all?.total).toBe(4);
    expect(all?.sidechains).toEqual([{ agentId: agent.agentId, description: "Find the flaky test", texts: fileLines, total: 4 }]);
    const after = await store.lineTexts?.("with-agents", 4, new Map([[agent.agentId, 3]]));
    expect(after).toEqual({
      texts: [],
      total: 4,
      sidechains: [{ agentId: agent.agentId, description: "Find the flaky test", texts: fileLines.slice(3), total: 4 }],
    });
    // Not the session's own lines: its conversation and list entry are unchanged.
    expect((await store.load("with-agents"))?.messages.map((message) => message.uuid)).toEqual(conversation("with-agents").map((message) => message.uuid));
    expect((await store.list()).find((entry) => entry.sessionId === "with-agents")?.messageCount).toBe(3);
  });

  it("refuses a stale owner's sidechain lines with code fenced, as its session lines", async () => {
    const leases = createSessionLeaseStore(sql, { ttlMs: 300 });
    const held = new Map<string, number>();
    const store = createPostgresSessionStore({ sql, cairnHome: "/unused", workspaceRoot, version: "1", fence: (sessionId) => held.get(sessionId) });
    const first = await leases.acquire("side-fenced", "node-a");
    if (!first.acquired) throw new Error("lease expected");
    held.set("side-fenced", first.generation);
    const main = store.openTranscript("side-fenced");
    await main.appendMessage(conversation("side-fenced")[0]!);
    const agent = { agentId: "stale-agent", agentType: "general-purpose", description: "Outlives its owner" };
    const sidechain = store.openSidechain?.("side-fenced", agent);
    const [prompt, answer] = conversation("stale").map((message) => ({ ...message, isSidechain: true, agentId: agent.agentId }));
    await sidechain?.sink.appendMessage(prompt!);
    await new Promise((resolve) => setTimeout(resolve, 400));
    expect(await leases.acquire("side-fenced", "node-b")).toMatchObject({ acquired: true });
    await expect(sidechain?.sink.appendMessage(answer!)).rejects.toMatchObject({ code: "fenced" });
    const read = await store.lineTexts?.("side-fenced", 0);
    expect(read?.sidechains.map((side) => side.total)).toEqual([2]);
  });

  it("writes an imported session as the JSONL store writes its file (importedFrom on the meta line), all or nothing, never over another", async () => {
    const session = {
      sessionId: "imported",
      title: "An imported chat",
      importedFrom: { format: "claude-code" as const, path: "/uploads/chat.jsonl", sessionId: "cc-session" },
      messages: conversation("imported"),
    };
    const store = createPostgresSessionStore({ sql, cairnHome: home, workspaceRoot: "/work/imports", version: "1", now: fixedNow });
    await store.writeSession(session);
    const files = createJsonlSessionStore({ cairnHome: home, workspaceRoot: "/work/imports", version: "1" });
    await files.writeSession(session);
    const fileLines = (await readFile(sessionTranscriptPath({ cairnHome: home, cwd: "/work/imports", sessionId: "imported" }), "utf8")).trimEnd().split("\n");
    const rows = await store.lineTexts?.("imported", 0);
    // The same lines but for the meta line's time (the file store's own clock).
    const withoutTime = (line: string) => line.replace(/"timestamp":"[^"]+"/, "");
    expect(rows?.texts.map(withoutTime)).toEqual(fileLines.map(withoutTime));
    expect(JSON.parse(rows?.texts[0] ?? "{}")).toMatchObject({ type: "cairn-session", title: "An imported chat", importedFrom: session.importedFrom });
    expect((await store.list()).find((entry) => entry.sessionId === "imported")).toMatchObject({ title: "An imported chat", messageCount: 3 });

    await expect(store.writeSession({ ...session, messages: conversation("other") })).rejects.toMatchObject({ code: "session-exists" });
    expect((await store.lineTexts?.("imported", 0))?.total).toBe(4);
    const invalid = { ...session, sessionId: "half-imported", messages: [...conversation("half"), { type: "user" } as unknown as ConversationMessage] };
    await expect(store.writeSession(invalid)).rejects.toMatchObject({ code: "invalid-message" });
    expect(await store.load("half-imported")).toBeUndefined();
  });

  it("refuses an invalid message without writing anything", async () => {
    const store = createPostgresSessionStore({ sql, cairnHome: home, workspaceRoot: "/work/invalid", version: "1" });
    const sink = store.openTranscript("invalid");
    await expect(sink.appendMessage({ type: "user" } as unknown as ConversationMessage)).rejects.toMatchObject({ code: "invalid-message" });
    expect(await store.load("invalid")).toBeUndefined();
  });
});
