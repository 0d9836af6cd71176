import type { IncomingMessage } from "node:http";
import { describe, expect, it } from "vitest";
import { AccessGuard } from "./access-guard.ts";
import { generateAccessToken, isLoopbackHost, tokensEqual } from "./access-token.ts";

const token = "t".repeat(43);
const guard = new AccessGuard({ token, port: 3000 });
const cookie = `cairn_token_3000=${token}`;
const incoming = (method: string, url: string, headers: Record<string, string> = {}) =>
  ({ method, url, headers: { host: "127.0.0.1:3000", ...headers } }) as unknown as IncomingMessage;

describe("AccessGuard", () => {
  it("logs in with ?token=, keeping the rest of the URL", () => {
    expect(guard.check(incoming("GET", `/files?a=1&token=${token}`))).toEqual({
      kind: "login",
      location: "/files?a=1",
      setCookie: `cairn_token_3000=${token}; Path=/; HttpOnly; SameSite=Strict`,
    });
    expect(guard.check(incoming("GET", "/?token=nope")).kind).toBe("unauthorized");
  });

  it("accepts the cookie or a bearer token and nothing else", () => {
    expect(guard.check(incoming("GET", "/", { cookie: `other=1; ${cookie}` })).kind).toBe("allow");
    expect(guard.check(incoming("GET", "/", { authorization: `Bearer ${token}` })).kind).toBe("allow");
    expect(guard.check(incoming("GET", "/")).kind).toBe("unauthorized");
    expect(guard.check(incoming("GET", "/", { cookie: "cairn_token_3000=wrong" })).kind).toBe("unauthorized");
    expect(guard.check(incoming("GET", "/", { authorization: "Bearer wrong" })).kind).toBe("unauthorized");
    expect(guard.check(incoming("GET", "/", { authorization: `Basic ${token}` })).kind).toBe("unauthorized");
  });

  it("lets cookie-borne state changes through only from this origin", () => {
    const post = (headers: Record<string, string>) => guard.check(incoming("POST", "/api/trpc/x", { cookie, ...headers })).kind;
    expect(post({ origin: "http://127.0.0.1:3000", "sec-fetch-site": "same-origin" })).toBe("allow");
    expect(post({ "sec-fetch-site": "same-origin" })).toBe("allow");
    expect(post({ origin: "http://127.0.0.1:3000" })).toBe("allow");
    expect(post({ origin: "http://127.0.0.1:3001" })).toBe("forbidden");
    expect(post({ origin: "null" })).toBe("forbidden");
    expect(post({ "sec-fetch-site": "cross-site" })).toBe("forbidden");
    expect(post({ "sec-fetch-site": "same-site" })).toBe("forbidden");
    expect(post({})).toBe("forbidden");
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
