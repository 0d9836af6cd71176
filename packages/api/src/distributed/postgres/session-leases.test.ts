import type { ConversationMessage } from "@cairn/core/schema";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startPrivatePostgres, type PrivateService } from "../testing/private-services.ts";
import { openDatabase, type Database } from "./database.ts";
import { migrate } from "./migrations.ts";
import { createPostgresSessionStore } from "./postgres-session-store.ts";
import { createSessionLeaseStore } from "./session-leases.ts";

const workspaceRoot = "/work/leases";
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

function prompt(sessionId: string, index: number): ConversationMessage {
  return {
    type: "user",
    uuid: `${sessionId}-u${index}`,
    parentUuid: index === 1 ? null : `${sessionId}-u${index - 1}`,
    timestamp: `2026-12-02T10:00:0${index}.000Z`,
    message: { role: "user", content: `prompt ${index}` },
  };
}

describe("session leases and fencing (private PostgreSQL)", () => {
  let database: PrivateService;
  let sql: Database;

  beforeAll(async () => {
    database = await startPrivatePostgres();
    sql = openDatabase(database.url);
    await migrate(sql);
  }, 120_000);

  afterAll(async () => {
    await sql?.end();
    await database?.stop();
  });

  it("gives a lease to one node, renews it for its owner only, and raises the generation at each takeover", async () => {
    const leases = createSessionLeaseStore(sql, { ttlMs: 400 });
    expect(await leases.acquire("s1", "node-a")).toEqual({ acquired: true, generation: 1, previousOwner: null, state: null });
    expect(await leases.acquire("s1", "node-b")).toEqual({ acquired: false, owner: "node-a", generation: 1, expired: false });
    // The owner itself cannot take it twice either: a second process with the same id waits for the lapse.
    expect(await leases.acquire("s1", "node-a")).toMatchObject({ acquired: false, owner: "node-a" });
    expect(await leases.renew("node-a", [{ sessionId: "s1", generation: 1 }])).toEqual(new Set(["s1"]));
    expect(await leases.renew("node-b", [{ sessionId: "s1", generation: 1 }])).toEqual(new Set());

    await sleep(500);
    expect(await leases.read(["s1"])).toEqual([{ sessionId: "s1", owner: "node-a", generation: 1, expired: true }]);
    expect(await leases.acquire("s1", "node-b")).toEqual({ acquired: true, generation: 2, previousOwner: "node-a", state: null });
    // The stale owner learns it at its next renewal.
    expect(await leases.renew("node-a", [{ sessionId: "s1", generation: 1 }])).toEqual(new Set());

    // A release hands over cleanly: no previous owner to recover from, and the generation still grows.
    await leases.release("s1", "node-b", 2);
    expect(await leases.read(["s1"])).toEqual([{ sessionId: "s1", owner: null, generation: 2, expired: true }]);
    expect(await leases.acquire("s1", "node-a")).toEqual({ acquired: true, generation: 3, previousOwner: null, state: null });
    // A release by a node that no longer holds it changes nothing.
    await leases.release("s1", "node-b", 2);
    expect(await leases.read(["s1"])).toMatchObject([{ owner: "node-a", generation: 3 }]);
  });

  it("keeps the owner's session state with the lease for the next owner, and refuses a stale owner's", async () => {
    const leases = createSessionLeaseStore(sql, { ttlMs: 300 });
    expect(await leases.acquire("carried", "node-a")).toMatchObject({ acquired: true, generation: 1, state: null });
    const state = { permissionMode: "acceptEdits", model: "model-b", waitingQuestions: [] };
    expect(await leases.saveState("carried", "node-a", 1, state)).toBe(true);
    // Not the owner, or not its generation: nothing is written.
    expect(await leases.saveState("carried", "node-b", 1, { ...state, model: "other" })).toBe(false);
    expect(await leases.saveState("carried", "node-a", 0, { ...state, model: "other" })).toBe(false);

    await sleep(400);
    expect(await leases.acquire("carried", "node-b")).toEqual({ acquired: true, generation: 2, previousOwner: "node-a", state });
    // node-a wakes up and writes under its old generation: refused, node-b's view stays.
    expect(await leases.saveState("carried", "node-a", 1, { ...state, model: "stale" })).toBe(false);
    expect(await leases.saveState("carried", "node-b", 2, { ...state, permissionMode: "plan" })).toBe(true);
    await leases.release("carried", "node-b", 2);
    expect(await leases.acquire("carried", "node-c")).toMatchObject({ acquired: true, generation: 3, state: { permissionMode: "plan", model: "model-b" } });
  });

  it("refuses the transcript appends of a stale owner with code fenced, and keeps the new owner's", async () => {
    const leases = createSessionLeaseStore(sql, { ttlMs: 300 });
    const heldBy = { a: new Map<string, number>(), b: new Map<string, number>() };
    const storeFor = (held: Map<string, number>) =>
      createPostgresSessionStore({ sql, cairnHome: "/unused", workspaceRoot, version: "1", fence: (sessionId) => held.get(sessionId) });
    const onA = storeFor(heldBy.a).openTranscript("fenced");
    const onB = storeFor(heldBy.b).openTranscript("fenced");

    // Without a lease nothing is written, not even the session's first line.
    await expect(onA.appendMessage(prompt("fenced", 1))).rejects.toMatchObject({ code: "fenced" });
    const first = await leases.acquire("fenced", "node-a");
    if (!first.acquired) throw new Error("node-a should have the lease");
    heldBy.a.set("fenced", first.generation);
    const onAFresh = storeFor(heldBy.a).openTranscript("fenced");
    await onAFresh.appendMessage(prompt("fenced", 1));

    await sleep(400);
    const second = await leases.acquire("fenced", "node-b");
    if (!second.acquired) throw new Error("node-b should have taken the lease over");
    heldBy.b.set("fenced", second.generation);
    // node-a still believes it holds generation 1: the database refuses it.
    await expect(onAFresh.appendMessage(prompt("fenced", 2))).rejects.toMatchObject({ code: "fenced" });
    await onB.appendMessage(prompt("fenced", 3));

    const loaded = await storeFor(heldBy.b).load("fenced");
    expect(loaded?.messages.map((message) => message.uuid)).toEqual(["fenced-u1", "fenced-u3"]);
  });

  it("orders an append against a takeover in flight: the append waits for it, then is refused", async () => {
    const leases = createSessionLeaseStore(sql, { ttlMs: 60_000 });
    const held = new Map<string, number>();
    const acquired = await leases.acquire("raced", "node-a");
    if (!acquired.acquired) throw new Error("node-a should have the lease");
    held.set("raced", acquired.generation);
    const store = createPostgresSessionStore({ sql, cairnHome: "/unused", workspaceRoot, version: "1", fence: (sessionId) => held.get(sessionId) });
    const sink = store.openTranscript("raced");
    await sink.appendMessage(prompt("raced", 1));

    // Another node's takeover has updated the lease row but not committed yet.
    let commit: () => void = () => undefined;
    const committed = new Promise<void>((resolve) => {
      commit = resolve;
    });
    let locked: () => void = () => undefined;
    const lockTaken = new Promise<void>((resolve) => {
      locked = resolve;
    });
    const takeover = sql.begin(async (transaction) => {
      await transaction`update cairn_session_leases set owner = 'node-b', generation = generation + 1 where session_id = 'raced'`;
      locked();
      await committed;
    });
    await lockTaken;
    let settled = false;
    const append = sink.appendMessage(prompt("raced", 2)).finally(() => {
      settled = true;
    });
    const refused = expect(append).rejects.toMatchObject({ code: "fenced" });
    await sleep(300);
    expect(settled).toBe(false);
    commit();
    await takeover;
    await refused;
    expect((await store.load("raced"))?.messages.map((message) => message.uuid)).toEqual(["raced-u1"]);
  });
});
