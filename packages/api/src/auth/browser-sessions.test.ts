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
  it("accept the cookie with its own key only, and store hashes, not secrets", () => {
    const { path, store } = openStore();
    const first = store.create();
    const second = store.create();
    expect(first.cookie).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(first.key).not.toBe(first.cookie);
    expect(store.check(first.cookie, first.key)).toMatchObject({ kind: "valid", sessionId: first.sessionId });
    expect(store.check(first.cookie, undefined).kind).toBe("valid");
    expect(store.check(first.cookie, second.key).kind).toBe("key_mismatch");
    expect(store.check(first.cookie, "").kind).toBe("key_mismatch");
    expect(store.check(first.key, first.key).kind).toBe("unknown");
    expect(store.check("nope", undefined).kind).toBe("unknown");
    store.close();
    // Closing folds the write-ahead log into the file.
    const bytes = readFileSync(path).toString("latin1");
    expect(bytes).toContain(first.sessionId);
    for (const secret of [first.cookie, first.key, second.cookie, second.key]) expect(bytes).not.toContain(secret);
  });

  it("expire, and sign out everywhere revokes every live one", () => {
    let now = 1_000;
    const { store } = openStore({ now: () => now, ttlMs: 60_000 });
    const early = store.create();
    now += 30_000;
    const late = store.create();
    expect(early.expiresAt).toBe(61_000);
    now += 30_000;
    expect(store.check(early.cookie, early.key).kind).toBe("unknown");
    expect(store.check(late.cookie, late.key).kind).toBe("valid");
    expect(store.revokeAll()).toBe(1);
    expect(store.check(late.cookie, late.key).kind).toBe("unknown");
    const after = store.create();
    expect(store.check(after.cookie, after.key).kind).toBe("valid");
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
