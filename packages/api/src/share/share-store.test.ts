import { existsSync, readFileSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { isShareLive, type NewShare } from "./share-records.ts";
import { ShareStore } from "./share-store.ts";
import { generateShareToken, hashShareToken, SHARE_TOKEN_PREFIX } from "./share-token.ts";

let dir: string;
let store: ShareStore | undefined;
let now = Date.UTC(2026, 10, 1);
const DAY = 86_400_000;

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), "cairn-shares-"));
  now = Date.UTC(2026, 10, 1);
});
afterEach(async () => {
  await store?.close();
  store = undefined;
  await rm(dir, { recursive: true, force: true });
});

const open = () => (store = new ShareStore({ path: join(dir, "shares.db"), now: () => now }));
const share = (overrides: Partial<NewShare> = {}): NewShare => ({
  sessionId: "s1",
  workspaceRoot: "/w",
  title: "Fix the parser",
  mode: "live",
  pinnedMessageUuid: null,
  expiresAt: now + 30 * DAY,
  ...overrides,
});

describe("share tokens", () => {
  it("are cairn_shr_ plus 43 base64url characters (256 random bits), all different", () => {
    const tokens = new Set<string>();
    for (let index = 0; index < 5_000; index++) {
      const token = generateShareToken();
      expect(token.startsWith(SHARE_TOKEN_PREFIX)).toBe(true);
      expect(token).toMatch(/^cairn_shr_[A-Za-z0-9_-]{43}$/);
      expect(Buffer.from(token.slice(SHARE_TOKEN_PREFIX.length), "base64url")).toHaveLength(32);
      tokens.add(token);
    }
    expect(tokens.size).toBe(5_000);
    // Every base64url character turns up: the body is not drawn from a narrower alphabet.
    const seen = new Set([...tokens].flatMap((token) => [...token.slice(SHARE_TOKEN_PREFIX.length)]));
    expect(seen.size).toBe(64);
  });
});

describe("the share store", () => {
  it("stores only the SHA-256 of the token: the token is nowhere in the database files", async () => {
    const { token, record } = await open().create(share());
    expect((await store?.findByToken(token))?.shareId).toBe(record.shareId);
    const rotated = await store?.rotate(record.shareId);
    expect(rotated).toBeDefined();
    await store?.close();
    store = undefined;
    const bytes = ["", "-wal", "-shm"]
      .map((suffix) => join(dir, `shares.db${suffix}`))
      .filter((path) => existsSync(path))
      .map((path) => readFileSync(path).toString("latin1"))
      .join("");
    expect(bytes).toContain(hashShareToken(rotated ?? ""));
    expect(bytes).toContain("Fix the parser");
    for (const secret of [token, rotated ?? "", token.slice(SHARE_TOKEN_PREFIX.length), (rotated ?? "").slice(SHARE_TOKEN_PREFIX.length)]) {
      expect(bytes).not.toContain(secret);
    }
  });

  it("expires a share at its expiry time (clock injected)", async () => {
    const { token } = await open().create(share({ expiresAt: now + DAY }));
    const record = await store?.findByToken(token);
    if (!record) throw new Error("no share");
    expect(isShareLive(record, now)).toBe(true);
    now += DAY - 1;
    expect(isShareLive(record, now)).toBe(true);
    now += 1;
    expect(isShareLive(record, now)).toBe(false);
  });

  it("rotates: the old token dies at once, the new one opens the same share", async () => {
    const { token, record } = await open().create(share());
    const changes: string[] = [];
    store?.onChange((change) => changes.push(`${change.kind} ${change.shareId}`));
    const fresh = await store?.rotate(record.shareId);
    expect(fresh).toBeDefined();
    expect(fresh).not.toBe(token);
    expect(await store?.findByToken(token)).toBeUndefined();
    expect((await store?.findByToken(fresh ?? ""))?.shareId).toBe(record.shareId);
    expect(changes).toEqual([`rotated ${record.shareId}`]);
  });

  it("revokes once; a revoked share can no longer be rotated", async () => {
    const { token, record } = await open().create(share());
    expect(await store?.revoke(record.shareId)).toBe(true);
    expect(await store?.revoke(record.shareId)).toBe(false);
    const revoked = await store?.findByToken(token);
    expect(revoked?.revokedAt).toBe(now);
    expect(revoked && isShareLive(revoked, now)).toBe(false);
    expect(await store?.rotate(record.shareId)).toBeUndefined();
    expect(await store?.revoke("no-such-share")).toBe(false);
  });

  it("counts views, lists a workspace's shares newest first, and survives reopening", async () => {
    open();
    const first = await store?.create(share({ title: "one" }));
    now += 1000;
    const second = await store?.create(share({ title: "two", mode: "snapshot", pinnedMessageUuid: "m9" }));
    await store?.create(share({ title: "elsewhere", workspaceRoot: "/other" }));
    await store?.recordView(first?.record.shareId ?? "");
    await store?.recordView(first?.record.shareId ?? "");
    await store?.close();
    open();
    const listed = (await store?.list("/w")) ?? [];
    expect(listed.map((record) => record.title)).toEqual(["two", "one"]);
    expect(listed[0]).toMatchObject({ shareId: second?.record.shareId, mode: "snapshot", pinnedMessageUuid: "m9", viewCount: 0, lastAccessAt: null });
    expect(listed[1]).toMatchObject({ viewCount: 2, lastAccessAt: now });
  });
});
