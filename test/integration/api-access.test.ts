import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { ServerConfigError, startServer } from "@cairn/api";
import { send, startApiFixture } from "./api-harness.ts";

const infoPath = "/api/trpc/meta.info";
const createPath = "/api/trpc/session.create";
const json = { "content-type": "application/json" };

describe("access to the server", () => {
  it("refuses requests without the token, with a wrong token, and with a wrong cookie", async () => {
    await using fixture = await startApiFixture();
    const url = fixture.server.url;
    expect((await send(`${url}${infoPath}`)).status).toBe(401);
    expect((await send(`${url}/`)).status).toBe(401);
    expect((await send(`${url}${infoPath}`, { headers: { authorization: "Bearer wrong-token-wrong-token" } })).status).toBe(401);
    expect((await send(`${url}${infoPath}`, { headers: { authorization: `Bearer ${fixture.server.token}x` } })).status).toBe(401);
    expect((await send(`${url}/?token=${fixture.server.token.slice(1)}`)).status).toBe(401);
    const cookieName = `cairn_token_${fixture.server.port}`;
    expect((await send(`${url}${infoPath}`, { headers: { cookie: `${cookieName}=nope` } })).status).toBe(401);
    expect((await send(`${url}${infoPath}`, { headers: { cookie: `cairn_token_1=${fixture.server.token}` } })).status).toBe(401);
    expect((await send(`${url}${infoPath}`, { headers: { authorization: `Bearer ${fixture.server.token}` } })).status).toBe(200);
  });

  it("turns ?token= into an HttpOnly SameSite=Strict cookie and redirects to the clean URL", async () => {
    await using fixture = await startApiFixture();
    const login = await send(`${fixture.server.url}/some/page?x=1&token=${fixture.server.token}`);
    expect(login.status).toBe(303);
    expect(login.headers.location).toBe("/some/page?x=1");
    const setCookie = String(login.headers["set-cookie"]);
    expect(setCookie).toContain(`cairn_token_${fixture.server.port}=${fixture.server.token}`);
    expect(setCookie).toMatch(/HttpOnly/);
    expect(setCookie).toMatch(/SameSite=Strict/);
    expect(login.headers["referrer-policy"]).toBe("no-referrer");

    const cookie = setCookie.split(";")[0]!;
    const info = await send(`${fixture.server.url}${infoPath}`, { headers: { cookie } });
    expect(info.status).toBe(200);
    expect(JSON.parse(info.body).result.data.workspaceRoot).toBe(fixture.root);
  });

  it("refuses cross-site mutations that ride on the cookie, and allows same-origin ones", async () => {
    await using fixture = await startApiFixture();
    const cookie = `cairn_token_${fixture.server.port}=${fixture.server.token}`;
    const url = `${fixture.server.url}${createPath}`;
    const host = new URL(fixture.server.url).host;
    const post = (headers: Record<string, string>) => send(url, { method: "POST", headers: { ...json, cookie, ...headers }, body: "{}" });

    expect((await post({ origin: "https://evil.example", "sec-fetch-site": "cross-site" })).status).toBe(403);
    expect((await post({ origin: "https://evil.example" })).status).toBe(403);
    expect((await post({ "sec-fetch-site": "same-site" })).status).toBe(403);
    expect((await post({})).status).toBe(403);
    expect((await post({ origin: `http://${host}`, "sec-fetch-site": "same-origin" })).status).toBe(200);
    // Scripts with the bearer token need no Origin.
    expect((await send(url, { method: "POST", headers: { ...json, authorization: `Bearer ${fixture.server.token}` }, body: "{}" })).status).toBe(200);
    // Reads over GET stay allowed from the page without an Origin.
    expect((await send(`${fixture.server.url}${infoPath}`, { headers: { cookie } })).status).toBe(200);
  });

  it("refuses to bind a non-loopback address without an explicit token", async () => {
    const parent = await mkdtemp(join(tmpdir(), "cairn-api-bind-"));
    try {
      const attempt = startServer({ workspace: parent, cairnHome: join(parent, "home"), version: "test", host: "0.0.0.0", port: 0, webDir: null, apiKey: "x", baseURL: "http://127.0.0.1:9" });
      await expect(attempt).rejects.toBeInstanceOf(ServerConfigError);
      await expect(attempt).rejects.toMatchObject({ code: "token_required" });
    } finally {
      await rm(parent, { recursive: true, force: true });
    }
  });
});
