import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { BrowserSessionStore } from "./browser-sessions.ts";
import { ideHostName } from "./ide-host.ts";

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

function openStore(options: { now?: () => number; ttlMs?: number } = {}) {
  const dir = mkdtempSync(join(tmpdir(), "cairn-auth-"));
  dirs.push(dir);
  const path = join(dir, "auth.db");
  return { path, store: new BrowserSessionStore({ path, ...options }) };
}

describe("browser sessions", () => {
  it("accept the cookie with its own key only, and store hashes, not secrets", async () => {
    const { path, store } = openStore();
    const first = await store.create();
    const second = await store.create();
    expect(first.cookie).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(first.key).not.toBe(first.cookie);
    expect(await store.check(first.cookie, first.key)).toMatchObject({ kind: "valid", sessionId: first.sessionId });
    expect((await store.check(first.cookie, undefined)).kind).toBe("valid");
    expect((await store.check(first.cookie, second.key)).kind).toBe("key_mismatch");
    expect((await store.check(first.cookie, "")).kind).toBe("key_mismatch");
    expect((await store.check(first.key, first.key)).kind).toBe("unknown");
    expect((await store.check("nope", undefined)).kind).toBe("unknown");
    store.close();
    // Closing folds the write-ahead log into the file.
    const bytes = readFileSync(path).toString("latin1");
    expect(bytes).toContain(first.sessionId);
    for (const secret of [first.cookie, first.key, second.cookie, second.key]) expect(bytes).not.toContain(secret);
  });

  it("expire, and sign out everywhere revokes every live one", async () => {
    let now = 1_000;
    const { store } = openStore({ now: () => now, ttlMs: 60_000 });
    const early = await store.create();
    now += 30_000;
    const late = await store.create();
    expect(early.expiresAt).toBe(61_000);
    now += 30_000;
    expect((await store.check(early.cookie, early.key)).kind).toBe("unknown");
    expect((await store.check(late.cookie, late.key)).kind).toBe("valid");
    expect(await store.revokeAll()).toBe(1);
    expect((await store.check(late.cookie, late.key)).kind).toBe("unknown");
    const after = await store.create();
    expect((await store.check(after.cookie, after.key)).kind).toBe("valid");
    store.close();
  });

  it("keep the IDE's host name across restarts", () => {
    const { path, store } = openStore();
    const name = ideHostName(store);
    expect(name).toMatch(/^cairn-[0-9a-f]{16}\.localhost$/);
    store.close();
    const reopened = new BrowserSessionStore({ path });
    expect(ideHostName(reopened)).toBe(name);
    reopened.close();
  });
});
