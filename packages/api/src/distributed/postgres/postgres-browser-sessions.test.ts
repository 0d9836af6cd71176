import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startPrivatePostgres, type PrivateService } from "../testing/private-services.ts";
import { openDatabase, type Database } from "./database.ts";
import { migrate } from "./migrations.ts";
import { clusterCookieName, createPostgresBrowserSessions } from "./postgres-browser-sessions.ts";

/** Two "nodes", each its own pool, over one private PostgreSQL: a sign-in made through one holds on the other. */
describe("browser sign-ins in PostgreSQL", () => {
  let database: PrivateService;
  let sqlA: Database;
  let sqlB: Database;
  let now = Date.UTC(2026, 11, 1);
  const clock = () => now;

  beforeAll(async () => {
    database = await startPrivatePostgres();
    sqlA = openDatabase(database.url, { max: 2 });
    sqlB = openDatabase(database.url, { max: 2 });
    await migrate(sqlA);
  }, 120_000);

  afterAll(async () => {
    await sqlA?.end();
    await sqlB?.end();
    await database?.stop();
  });

  it("a browser signed in through node A is admitted by node B with its own key only; only hashes are stored", async () => {
    const nodeA = createPostgresBrowserSessions({ sql: sqlA, now: clock });
    const nodeB = createPostgresBrowserSessions({ sql: sqlB, now: clock });
    const first = await nodeA.create();
    const second = await nodeB.create();
    expect(first.cookie).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(await nodeB.check(first.cookie, first.key)).toEqual({ kind: "valid", sessionId: first.sessionId, expiresAt: first.expiresAt });
    expect(await nodeA.check(second.cookie, second.key)).toMatchObject({ kind: "valid", sessionId: second.sessionId });
    expect((await nodeB.check(first.cookie, undefined)).kind).toBe("valid");
    expect((await nodeB.check(first.cookie, second.key)).kind).toBe("key_mismatch");
    expect((await nodeB.check(first.cookie, "")).kind).toBe("key_mismatch");
    expect((await nodeB.check(first.key, first.key)).kind).toBe("unknown");
    expect((await nodeB.check("nope", undefined)).kind).toBe("unknown");
    const stored = JSON.stringify(await sqlA`select * from cairn_browser_sessions`);
    expect(stored).toContain(first.sessionId);
    for (const secret of [first.cookie, first.key, second.cookie, second.key]) expect(stored).not.toContain(secret);
  });

  it("sign-ins expire, and signing out everywhere on one node signs every browser out on every node", async () => {
    const nodeA = createPostgresBrowserSessions({ sql: sqlA, now: clock, ttlMs: 60_000 });
    const nodeB = createPostgresBrowserSessions({ sql: sqlB, now: clock, ttlMs: 60_000 });
    await nodeA.revokeAll();
    const early = await nodeA.create();
    now += 30_000;
    const late = await nodeB.create();
    now += 30_000;
    expect((await nodeB.check(early.cookie, early.key)).kind).toBe("unknown");
    expect((await nodeA.check(late.cookie, late.key)).kind).toBe("valid");
    expect(await nodeB.revokeAll()).toBe(1);
    expect((await nodeA.check(late.cookie, late.key)).kind).toBe("unknown");
    // A new sign-in works again, and clears the dead rows on the way.
    const after = await nodeA.create();
    expect((await nodeB.check(after.cookie, after.key)).kind).toBe("valid");
    expect((await sqlA`select session_id from cairn_browser_sessions`).map((row) => row.session_id)).toEqual([after.sessionId]);
  });

  it("every node gets the same cookie name for the cluster, made once", async () => {
    const [fromA, fromB] = await Promise.all([clusterCookieName(sqlA), clusterCookieName(sqlB)]);
    expect(fromA).toMatch(/^cairn_session_[0-9a-f]{16}$/);
    expect(fromB).toBe(fromA);
    expect(await clusterCookieName(sqlB)).toBe(fromA);
  });
});
