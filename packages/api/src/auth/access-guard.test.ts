import type { IncomingMessage } from "node:http";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { AccessGuard } from "./access-guard.ts";
import { generateAccessToken, isLoopbackHost, tokensEqual } from "./access-token.ts";
import { BrowserSessionStore } from "./browser-sessions.ts";
import { HostPolicy } from "./host-policy.ts";

const token = "t".repeat(43);
const dir = mkdtempSync(join(tmpdir(), "cairn-guard-"));
const sessions = new BrowserSessionStore({ path: join(dir, "auth.db") });
afterAll(() => {
  sessions.close();
  rmSync(dir, { recursive: true, force: true });
});
const hosts = new HostPolicy({ boundHost: "127.0.0.1", port: 3000, ideHost: "cairn-0123456789abcdef.localhost", allowedHosts: [] });
const guard = new AccessGuard({ token, port: 3000, sessions, hosts });
const incoming = (method: string, url: string, headers: Record<string, string> = {}) =>
  ({ method, url, headers: { host: "127.0.0.1:3000", ...headers } }) as unknown as IncomingMessage;

/** Logs in and returns the cookie pair and key the browser would hold. */
async function login(): Promise<{ cookie: string; key: string }> {
  const decision = await guard.check(incoming("GET", `/?token=${token}`));
  if (decision.kind !== "login") throw new Error(decision.kind);
  const key = decision.location.split("#cairn-key=")[1] ?? "";
  return { cookie: decision.setCookie.split(";")[0] ?? "", key };
}

describe("AccessGuard", () => {
  it("logs in with ?token=: a session cookie that is not the token, the key in the fragment, the rest of the URL kept", async () => {
    const decision = await guard.check(incoming("GET", `/files?a=1&token=${token}`));
    expect(decision.kind).toBe("login");
    if (decision.kind !== "login") return;
    expect(decision.location).toMatch(/^\/files\?a=1#cairn-key=[A-Za-z0-9_-]{43}$/);
    expect(decision.setCookie).toMatch(/^cairn_session_3000=[A-Za-z0-9_-]{43}; Path=\/; Max-Age=2592000; HttpOnly; SameSite=Strict$/);
    expect(decision.setCookie).not.toContain(token);
    expect(decision.setCookie).not.toContain("Domain");
    expect((await guard.check(incoming("GET", "/?token=nope"))).kind).toBe("unauthorized");
  });

  it("opens the API to the cookie with its key (header or SSE connectionParams) or a bearer token, and nothing else", async () => {
    const { cookie, key } = await login();
    const api = async (headers: Record<string, string>, query = "") => (await guard.check(incoming("GET", `/api/trpc/meta.info${query}`, headers))).kind;
    expect(await api({ cookie: `other=1; ${cookie}`, "x-cairn-key": key })).toBe("allow");
    expect(await api({ cookie }, `?connectionParams=${encodeURIComponent(JSON.stringify({ cairnKey: key }))}`)).toBe("allow");
    expect(await api({ authorization: `Bearer ${token}` })).toBe("allow");
    // The cookie alone (what another port of the same host receives) opens no API.
    expect(await api({ cookie })).toBe("unauthorized");
    expect(await api({ cookie, "x-cairn-key": (await login()).key })).toBe("unauthorized");
    expect(await api({ cookie }, "?connectionParams=%7Bbroken")).toBe("unauthorized");
    expect(await api({})).toBe("unauthorized");
    expect(await api({ cookie: `cairn_session_3000=${token}`, "x-cairn-key": key })).toBe("unauthorized");
    expect(await api({ authorization: "Bearer wrong" })).toBe("unauthorized");
    expect(await api({ authorization: `Basic ${token}` })).toBe("unauthorized");
    // Pages load with the cookie alone (a navigation cannot carry a header); they hold no data.
    expect((await guard.check(incoming("GET", "/", { cookie }))).kind).toBe("allow");
    expect((await guard.check(incoming("GET", "/"))).kind).toBe("unauthorized");
  });

  it("lets cookie-borne state changes through only from this origin, and only with the key", async () => {
    const { cookie, key } = await login();
    const post = async (headers: Record<string, string>) =>
      (await guard.check(incoming("POST", "/api/trpc/x", { cookie, "x-cairn-key": key, ...headers }))).kind;
    expect(await post({ origin: "http://127.0.0.1:3000", "sec-fetch-site": "same-origin" })).toBe("allow");
    expect(await post({ "sec-fetch-site": "same-origin" })).toBe("allow");
    expect(await post({ origin: "http://127.0.0.1:3000" })).toBe("allow");
    expect(await post({ origin: "http://cairn-0123456789abcdef.localhost:3000" })).toBe("allow");
    expect(await post({ origin: "http://127.0.0.1:3001" })).toBe("forbidden");
    // The Host a rebinding page sends is its own name: an Origin matching it proves nothing.
    expect(await post({ host: "evil.example:3000", origin: "http://evil.example:3000" })).toBe("forbidden");
    expect(await post({ origin: "null" })).toBe("forbidden");
    expect(await post({ "sec-fetch-site": "cross-site" })).toBe("forbidden");
    expect(await post({ "sec-fetch-site": "same-site" })).toBe("forbidden");
    expect(await post({})).toBe("forbidden");
    expect((await guard.check(incoming("POST", "/", { cookie, origin: "http://127.0.0.1:3000" }))).kind).toBe("unauthorized");
  });
});

describe("access tokens", () => {
  it("are 32 random bytes in base64url and compare by value", () => {
    const generated = generateAccessToken();
    expect(generated).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(generateAccessToken()).not.toBe(generated);
    expect(tokensEqual(generated, generated)).toBe(true);
    expect(tokensEqual(generated, `${generated}x`)).toBe(false);
    expect(tokensEqual("", generated)).toBe(false);
  });

  it("knows loopback hosts", () => {
    for (const host of ["127.0.0.1", "127.1.2.3", "localhost", "::1", "[::1]"]) expect(isLoopbackHost(host)).toBe(true);
    for (const host of ["0.0.0.0", "192.168.1.2", "::", "example.com"]) expect(isLoopbackHost(host)).toBe(false);
  });
});
