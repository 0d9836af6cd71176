import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { TOKEN_REPLACED_MESSAGE } from "../../auth/access-token.ts";
import { startPrivatePostgres, type PrivateService } from "../testing/private-services.ts";
import { createChangeChannel, type ChangeChannel } from "./change-channel.ts";
import { openDatabase, type Database } from "./database.ts";
import { migrate } from "./migrations.ts";
import { type AccessTokenClaim, AccessTokenReplacedError, claimAccessToken } from "./postgres-access-token.ts";

const OLD_TOKEN = "old-cluster-token-0123456789";
const NEW_TOKEN = "new-cluster-token-9876543210";

/** Nodes, each its own pool and change channel over one private PostgreSQL, claiming the cluster's access token. */
describe("the cluster's access token in PostgreSQL (private PostgreSQL)", () => {
  let database: PrivateService;
  const opened: Array<{ sql: Database; changes: ChangeChannel }> = [];
  const claims: AccessTokenClaim[] = [];

  const node = (): { sql: Database; changes: ChangeChannel } => {
    const sql = openDatabase(database.url, { max: 3 });
    const each = { sql, changes: createChangeChannel(sql, (message) => expect.fail(message)) };
    opened.push(each);
    return each;
  };
  const claim = async (on: { sql: Database; changes: ChangeChannel }, token: string, recheckMs = 60_000) => {
    const made = await claimAccessToken({ ...on, token, recheckMs, onError: (error) => expect.fail(error.message) });
    claims.push(made);
    return made;
  };
  const aborted = (signal: AbortSignal) => new Promise<void>((resolve) => signal.addEventListener("abort", () => resolve(), { once: true }));

  beforeAll(async () => {
    database = await startPrivatePostgres();
    await migrate(node().sql);
  }, 120_000);

  afterAll(async () => {
    for (const made of claims) made.close();
    for (const each of opened) {
      await each.changes.close();
      await each.sql.end();
    }
    await database?.stop();
  });

  it("a node started with a new token ends the old one on every node at once (a notice); the old one cannot come back", async () => {
    const [nodeA, nodeB, nodeC] = [node(), node(), node()];
    const onA = await claim(nodeA, OLD_TOKEN);
    const onB = await claim(nodeB, OLD_TOKEN);
    // A notice reaches a node once its LISTEN is in place (a node waits for it at start).
    expect(await Promise.all([nodeA.changes.listening(), nodeB.changes.listening()])).toEqual([true, true]);
    expect(onA.replaced.aborted).toBe(false);

    const startedAt = Date.now();
    const onC = await claim(nodeC, NEW_TOKEN);
    await Promise.all([aborted(onA.replaced), aborted(onB.replaced)]);
    // Told by the notice, not found by the periodic re-check (a minute here).
    expect(Date.now() - startedAt).toBeLessThan(5_000);
    expect((onA.replaced.reason as Error).message).toBe(TOKEN_REPLACED_MESSAGE);
    await onC.recheck();
    expect(onC.replaced.aborted).toBe(false);

    // A node started with the replaced token again stops at start; one started with the new token goes on.
    await expect(claimAccessToken({ ...node(), token: OLD_TOKEN })).rejects.toBeInstanceOf(AccessTokenReplacedError);
    const another = await claim(node(), NEW_TOKEN);
    await another.recheck();
    expect(another.replaced.aborted).toBe(false);

    // Hashes only: neither token is stored.
    const stored = JSON.stringify(await nodeA.sql`select * from cairn_access_tokens`);
    for (const token of [OLD_TOKEN, NEW_TOKEN]) expect(stored).not.toContain(token);
    const rows = await nodeA.sql<{ replaced_at: string | null }[]>`select replaced_at from cairn_access_tokens order by claimed_at`;
    expect(rows.map((row) => row.replaced_at !== null)).toEqual([true, false]);
  });

  it("a node that missed the notice finds its token replaced at its next periodic re-check", async () => {
    const first = "periodic-token-aaaaaaaaaaaa";
    // This node's change channel delivers nothing: only the re-check can tell it.
    const deaf = node();
    const onDeaf = await claimAccessToken({
      sql: deaf.sql,
      changes: { publish: async () => undefined, subscribe: () => () => undefined, listening: async () => true, close: async () => undefined },
      token: first,
      recheckMs: 300,
    });
    claims.push(onDeaf);
    await claim(node(), "periodic-token-bbbbbbbbbbbb");
    await aborted(onDeaf.replaced);
    expect((onDeaf.replaced.reason as Error).message).toBe(TOKEN_REPLACED_MESSAGE);
  });
});
