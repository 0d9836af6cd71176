import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { createChangeChannel } from "../distributed/postgres/change-channel.ts";
import { openDatabase, type Database } from "../distributed/postgres/database.ts";
import { migrate } from "../distributed/postgres/migrations.ts";
import { clusterCookieName, createPostgresBrowserSessions } from "../distributed/postgres/postgres-browser-sessions.ts";
import { startPrivatePostgres, type PrivateService } from "../distributed/testing/private-services.ts";
import type { BrowserSessionRepository } from "./browser-session-secrets.ts";
import { BrowserSessionStore } from "./browser-sessions.ts";
import { ideHostName } from "./ide-host.ts";

type RepositoryOptions = { now?: () => number; ttlMs?: number };

/** One implementation under test: a repository opened fresh (on an empty store) and what its storage holds, as text. */
type Subject = { open(options?: RepositoryOptions): Promise<{ repository: BrowserSessionRepository; stored(): Promise<string> }> };

const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

const sqlite: Subject = {
  async open(options = {}) {
    const dir = mkdtempSync(join(tmpdir(), "cairn-auth-"));
    const path = join(dir, "auth.db");
    const repository = new BrowserSessionStore({ path, ...options });
    cleanups.push(() => {
      repository.close();
      rmSync(dir, { recursive: true, force: true });
    });
    return {
      repository,
      // Closing folds the write-ahead log into the file: reopened afterwards for the next step of a test.
      stored: async () => {
        repository.close();
        return readFileSync(path).toString("latin1");
      },
    };
  },
};

let database: PrivateService | undefined;
let schemaReady: Promise<void> | undefined;
/** A pool on the suite's private PostgreSQL (started at the first call), ended after the test unless `ends` says otherwise. */
const postgresDatabase = async (ends: Array<() => Promise<void> | void> = cleanups): Promise<Database> => {
  database ??= await startPrivatePostgres();
  const sql = openDatabase(database.url, { max: 2 });
  ends.push(() => sql.end());
  schemaReady ??= migrate(sql).then(() => undefined);
  await schemaReady;
  return sql;
};
afterAll(async () => {
  await database?.stop();
});

const postgres: Subject = {
  async open(options = {}) {
    const sql = await postgresDatabase();
    await sql`delete from cairn_browser_sessions`;
    const changes = createChangeChannel(sql, () => undefined);
    cleanups.push(() => changes.close());
    return {
      repository: createPostgresBrowserSessions({ sql, changes, ...options }),
      stored: async () => JSON.stringify(await sql`select * from cairn_browser_sessions`),
    };
  },
};

/** The contract every place browser sign-ins are kept meets: the embedded SQLite `auth.db` and PostgreSQL. */
describe.each([
  ["SQLite (auth.db)", sqlite],
  ["PostgreSQL", postgres],
] as const)("browser sign-ins in %s", (_name, subject) => {
  it("accept the cookie with its own key only, and store hashes, not secrets", { timeout: 120_000 }, async () => {
    const { repository, stored } = await subject.open();
    const first = await repository.create();
    const second = await repository.create();
    expect(first.cookie).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(first.key).not.toBe(first.cookie);
    expect(await repository.check(first.cookie, first.key)).toEqual({ kind: "valid", sessionId: first.sessionId, expiresAt: first.expiresAt });
    expect((await repository.check(first.cookie, undefined)).kind).toBe("valid");
    expect((await repository.check(first.cookie, second.key)).kind).toBe("key_mismatch");
    expect((await repository.check(first.cookie, "")).kind).toBe("key_mismatch");
    expect((await repository.check(first.key, first.key)).kind).toBe("unknown");
    expect((await repository.check("nope", undefined)).kind).toBe("unknown");
    const text = await stored();
    expect(text).toContain(first.sessionId);
    for (const secret of [first.cookie, first.key, second.cookie, second.key]) expect(text).not.toContain(secret);
  });

  it("expire, and sign out everywhere revokes every live one; a new sign-in works again", { timeout: 120_000 }, async () => {
    let now = 1_000;
    const { repository } = await subject.open({ now: () => now, ttlMs: 60_000 });
    const early = await repository.create();
    now += 30_000;
    const late = await repository.create();
    expect(early.expiresAt).toBe(61_000);
    now += 30_000;
    expect((await repository.check(early.cookie, early.key)).kind).toBe("unknown");
    expect((await repository.check(late.cookie, late.key)).kind).toBe("valid");
    expect(await repository.revokeAll()).toBe(1);
    expect((await repository.check(late.cookie, late.key)).kind).toBe("unknown");
    const after = await repository.create();
    expect((await repository.check(after.cookie, after.key)).kind).toBe("valid");
  });

  it("tell their listeners after a sign out everywhere, until they unsubscribe", { timeout: 120_000 }, async () => {
    const { repository } = await subject.open();
    let told = 0;
    const unsubscribe = repository.onRevoked(() => told++);
    await repository.create();
    expect(told).toBe(0);
    await repository.revokeAll();
    // Told at once here (the PostgreSQL notice that comes back later may tell it once more).
    expect(told).toBeGreaterThanOrEqual(1);
    unsubscribe();
    const before = told;
    await repository.revokeAll();
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(told).toBe(before);
  });
});

describe("browser sign-ins in SQLite only", () => {
  it("keep the IDE's host name across restarts", () => {
    const dir = mkdtempSync(join(tmpdir(), "cairn-auth-"));
    cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
    const path = join(dir, "auth.db");
    const store = new BrowserSessionStore({ path });
    const name = ideHostName(store);
    expect(name).toMatch(/^cairn-[0-9a-f]{16}\.localhost$/);
    store.close();
    const reopened = new BrowserSessionStore({ path });
    expect(ideHostName(reopened)).toBe(name);
    reopened.close();
  });
});

/** Two "nodes", each its own pool and change channel, over one private PostgreSQL. */
describe("browser sign-ins in PostgreSQL, across nodes", () => {
  let sqlA: Database;
  let sqlB: Database;
  const pools: Array<() => Promise<void> | void> = [];

  beforeAll(async () => {
    sqlA = await postgresDatabase(pools);
    sqlB = await postgresDatabase(pools);
  }, 120_000);

  afterAll(async () => {
    for (const end of pools) await end();
  });

  const node = (sql: Database) => {
    const changes = createChangeChannel(sql, () => undefined);
    cleanups.push(() => changes.close());
    return { sessions: createPostgresBrowserSessions({ sql, changes }), listening: () => changes.listening() };
  };

  it("a browser signed in through node A is admitted by node B; signing out everywhere on B is told to A's listeners and holds there", async () => {
    const [onA, onB] = [node(sqlA), node(sqlB)];
    const [nodeA, nodeB] = [onA.sessions, onB.sessions];
    let toldA = 0;
    nodeA.onRevoked(() => toldA++);
    const signedIn = await nodeA.create();
    expect(await nodeB.check(signedIn.cookie, signedIn.key)).toMatchObject({ kind: "valid", sessionId: signedIn.sessionId });
    // The notice travels over LISTEN/NOTIFY: A hears it once its LISTEN is in place (as a node waits for at start).
    expect(await onA.listening()).toBe(true);
    expect(await nodeB.revokeAll()).toBeGreaterThanOrEqual(1);
    await expect.poll(() => toldA, { timeout: 10_000 }).toBeGreaterThanOrEqual(1);
    expect((await nodeA.check(signedIn.cookie, signedIn.key)).kind).toBe("unknown");
  });

  it("every node gets the same cookie name for the cluster, made once", async () => {
    const [fromA, fromB] = await Promise.all([clusterCookieName(sqlA), clusterCookieName(sqlB)]);
    expect(fromA).toMatch(/^cairn_session_[0-9a-f]{16}$/);
    expect(fromB).toBe(fromA);
    expect(await clusterCookieName(sqlB)).toBe(fromA);
  });
});
