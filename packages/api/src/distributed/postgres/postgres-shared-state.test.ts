import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { isShareLive, type NewShare, type ShareChange } from "../../share/share-records.ts";
import { hashShareToken, SHARE_TOKEN_PREFIX } from "../../share/share-token.ts";
import { startPrivatePostgres, type PrivateService } from "../testing/private-services.ts";
import { createChangeChannel, type ChangeChannel } from "./change-channel.ts";
import { openDatabase, type Database } from "./database.ts";
import { migrate } from "./migrations.ts";
import { createPostgresLocalSettings } from "./postgres-local-settings.ts";
import { createPostgresShareRepository } from "./postgres-share-repository.ts";
import { createPostgresTrust } from "./postgres-trust.ts";

const DAY = 86_400_000;

/** Two "nodes": each its own pool and change channel over one private PostgreSQL. */
describe("shares, trust and IDE-written settings in PostgreSQL", () => {
  let database: PrivateService;
  let nodeA: { sql: Database; changes: ChangeChannel };
  let nodeB: { sql: Database; changes: ChangeChannel };
  let now = Date.UTC(2026, 11, 1);
  const clock = () => now;

  const node = (): { sql: Database; changes: ChangeChannel } => {
    const sql = openDatabase(database.url, { max: 3 });
    return { sql, changes: createChangeChannel(sql, (message) => expect.fail(message)) };
  };
  const share = (overrides: Partial<NewShare> = {}): NewShare => ({
    sessionId: "s1",
    workspaceRoot: "/w",
    title: "Fix the parser",
    mode: "live",
    pinnedMessageUuid: null,
    expiresAt: now + 30 * DAY,
    ...overrides,
  });

  beforeAll(async () => {
    database = await startPrivatePostgres();
    nodeA = node();
    nodeB = node();
    await migrate(nodeA.sql);
    // A node hears notices once its LISTEN is in place (as a node waits for it at start): one sent before is missed.
    expect(await Promise.all([nodeA.changes.listening(), nodeB.changes.listening()])).toEqual([true, true]);
  }, 120_000);

  afterAll(async () => {
    for (const each of [nodeA, nodeB]) {
      await each?.changes.close();
      await each?.sql.end();
    }
    await database?.stop();
  });

  it("stores a share's token hash only; a link made on one node opens on the other", async () => {
    const onA = createPostgresShareRepository({ ...nodeA, now: clock });
    const onB = createPostgresShareRepository({ ...nodeB, now: clock });
    const { token, record } = await onA.create(share());
    expect(token.startsWith(SHARE_TOKEN_PREFIX)).toBe(true);
    expect(await onB.findByToken(token)).toEqual(record);
    expect(await onB.get(record.shareId)).toEqual(record);
    expect(await onB.findByToken(`${token}x`)).toBeUndefined();
    const rows = await nodeA.sql`select * from cairn_shares`;
    const stored = JSON.stringify(rows);
    expect(stored).toContain(hashShareToken(token));
    expect(stored).not.toContain(token.slice(SHARE_TOKEN_PREFIX.length));
    await Promise.all([onA.close(), onB.close()]);
  });

  it("rotates and revokes on one node; the other node is told and sees it at once", async () => {
    const onA = createPostgresShareRepository({ ...nodeA, now: clock });
    const onB = createPostgresShareRepository({ ...nodeB, now: clock });
    const seenOnB: ShareChange[] = [];
    const unsubscribe = onB.onChange((change) => seenOnB.push(change));
    expect(onB.listenerCount()).toBe(1);
    const { token, record } = await onA.create(share());
    const fresh = await onA.rotate(record.shareId);
    expect(fresh).toBeDefined();
    expect(await onB.findByToken(token)).toBeUndefined();
    expect((await onB.findByToken(fresh ?? ""))?.shareId).toBe(record.shareId);
    expect(await onA.revoke(record.shareId)).toBe(true);
    expect(await onB.revoke(record.shareId)).toBe(false);
    expect(await onB.rotate(record.shareId)).toBeUndefined();
    const revoked = await onB.findByToken(fresh ?? "");
    expect(revoked?.revokedAt).toBe(now);
    expect(revoked && isShareLive(revoked, now)).toBe(false);
    await vi.waitFor(() =>
      expect(seenOnB).toEqual([
        { shareId: record.shareId, kind: "rotated" },
        { shareId: record.shareId, kind: "revoked" },
      ]),
    );
    unsubscribe();
    expect(onB.listenerCount()).toBe(0);
    await Promise.all([onA.close(), onB.close()]);
  });

  it("lists a workspace's shares newest first with their views, and expires on the clock", async () => {
    const repository = createPostgresShareRepository({ ...nodeA, now: clock });
    const first = await repository.create(share({ workspaceRoot: "/listed", title: "one", expiresAt: now + DAY }));
    now += 1000;
    const second = await repository.create(share({ workspaceRoot: "/listed", title: "two", mode: "snapshot", pinnedMessageUuid: "m9" }));
    await repository.create(share({ workspaceRoot: "/elsewhere", title: "other" }));
    await repository.recordView(first.record.shareId);
    await repository.recordView(first.record.shareId);
    const listed = await repository.list("/listed");
    expect(listed.map((record) => record.title)).toEqual(["two", "one"]);
    expect(listed[0]).toMatchObject({ shareId: second.record.shareId, mode: "snapshot", pinnedMessageUuid: "m9", viewCount: 0, lastAccessAt: null });
    expect(listed[1]).toMatchObject({ viewCount: 2, lastAccessAt: now });
    const opened = await repository.findByToken(first.token);
    expect(opened && isShareLive(opened, now)).toBe(true);
    expect(opened && isShareLive(opened, first.record.expiresAt)).toBe(false);
    await repository.close();
  });

  it("keeps trust decisions per workspace, shared by the nodes", async () => {
    const onA = createPostgresTrust({ ...nodeA, nodeId: "node-a" });
    const onB = createPostgresTrust({ ...nodeB, nodeId: "node-b" });
    expect(await onB.isTrusted("/trusted")).toBe(false);
    await onA.trust("/trusted");
    await onA.trust("/trusted");
    expect(await onB.isTrusted("/trusted")).toBe(true);
    expect(await onB.isTrusted("/other")).toBe(false);
    const [row] = await nodeA.sql<{ trusted_by_node: string }[]>`select trusted_by_node from cairn_trusted_workspaces where workspace_root = '/trusted'`;
    expect(row?.trusted_by_node).toBe("node-a");
  });

  it("adds and removes IDE rules in one row per workspace; concurrent adds from two nodes both land, and each node is told", async () => {
    const onA = createPostgresLocalSettings({ ...nodeA, workspaceRoot: "/rules" });
    const onB = createPostgresLocalSettings({ ...nodeB, workspaceRoot: "/rules" });
    let noticesOnB = 0;
    const stop = onB.onChange(() => noticesOnB++);
    expect(await onA.read()).toBeUndefined();
    const added = await Promise.all([
      onA.addRule("allow", "Bash(npm test:*)"),
      onB.addRule("allow", "Read"),
      onA.addRule("deny", "Bash(rm:*)"),
      onB.addRule("allow", "Bash(git status)"),
    ]);
    expect(added).toEqual([true, true, true, true]);
    expect(await onA.addRule("allow", "Read")).toBe(false);
    const settings = JSON.parse((await onB.read()) ?? "{}") as { permissions: { allow: string[]; deny: string[] } };
    expect([...settings.permissions.allow].sort()).toEqual(["Bash(git status)", "Bash(npm test:*)", "Read"]);
    expect(settings.permissions.deny).toEqual(["Bash(rm:*)"]);
    expect(await onB.removeRule("allow", "Read")).toBe(true);
    expect(await onB.removeRule("allow", "Read")).toBe(false);
    await expect(onA.addRule("allow", "Bash(unclosed")).rejects.toMatchObject({ code: "invalid_rule" });
    await vi.waitFor(() => expect(noticesOnB).toBe(5));
    stop();
    expect(onA.location).toBe("postgres:cairn_local_settings//rules");
    // Another workspace's layer is its own.
    expect(await createPostgresLocalSettings({ ...nodeA, workspaceRoot: "/elsewhere" }).read()).toBeUndefined();
  });
});
