import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { ServerConfigError, startServer } from "@cairn/api";
import { send, startApiFixture } from "./api-harness.ts";
import { localWorkerScript } from "../support/cli.ts";

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
    const cookieName = `cairn_session_${fixture.server.port}`;
    expect((await send(`${url}${infoPath}`, { headers: { cookie: `${cookieName}=nope` } })).status).toBe(401);
    // The access token is no cookie value, under the old name or the new one.
    for (const cookie of [`cairn_token_${fixture.server.port}=${fixture.server.token}`, `${cookieName}=${fixture.server.token}`]) {
      expect((await send(`${url}${infoPath}`, { headers: { cookie, "x-cairn-key": fixture.server.token } })).status).toBe(401);
    }
    expect((await send(`${url}${infoPath}`, { headers: { authorization: `Bearer ${fixture.server.token}` } })).status).toBe(200);
  });

  it("turns ?token= into a browser session: an HttpOnly SameSite=Strict cookie that is not the token, and a key in the redirect's fragment", async () => {
    await using fixture = await startApiFixture();
    const login = await send(`${fixture.server.url}/some/page?x=1&token=${fixture.server.token}`);
    expect(login.status).toBe(303);
    const location = String(login.headers.location);
    expect(location).toMatch(/^\/some\/page\?x=1#cairn-key=[A-Za-z0-9_-]{43}$/);
    const key = location.split("#cairn-key=")[1]!;
    const setCookie = String(login.headers["set-cookie"]);
    expect(setCookie).toMatch(new RegExp(`^cairn_session_${fixture.server.port}=[A-Za-z0-9_-]{43}; Path=/; Max-Age=\\d+; HttpOnly; SameSite=Strict$`));
    expect(setCookie).not.toContain(fixture.server.token);
    expect(login.headers["referrer-policy"]).toBe("no-referrer");

    const cookie = setCookie.split(";")[0]!;
    const info = await send(`${fixture.server.url}${infoPath}`, { headers: { cookie, "x-cairn-key": key } });
    expect(info.status).toBe(200);
    expect(JSON.parse(info.body).result.data.workspaceRoot).toBe(fixture.root);
    // The cookie alone, as another port of the same host would receive it: the page shell, never the API.
    expect((await send(`${fixture.server.url}${infoPath}`, { headers: { cookie } })).status).toBe(401);
    expect((await send(`${fixture.server.url}/`, { headers: { cookie } })).status).toBe(404);
    // Subscriptions (EventSource) carry the key in tRPC's connectionParams.
    const params = encodeURIComponent(JSON.stringify({ cairnKey: key }));
    const watch = await fetch(`${fixture.server.url}/api/trpc/workspace.watch?connectionParams=${params}`, {
      headers: { cookie, accept: "text/event-stream" },
    });
    expect(watch.status).toBe(200);
    await watch.body?.cancel();
  });

  it("signs every browser out with auth.signOutEverywhere; the printed link signs in again, bearer scripts carry on", async () => {
    await using fixture = await startApiFixture();
    const signIn = async () => {
      const login = await send(`${fixture.server.url}/?token=${fixture.server.token}`);
      return { cookie: String(login.headers["set-cookie"]).split(";")[0]!, "x-cairn-key": String(login.headers.location).split("#cairn-key=")[1]! };
    };
    const first = await signIn();
    const second = await signIn();
    expect((await send(`${fixture.server.url}${infoPath}`, { headers: first })).status).toBe(200);
    const origin = fixture.server.url;
    const signOut = await send(`${fixture.server.url}/api/trpc/auth.signOutEverywhere`, {
      method: "POST",
      headers: { ...json, ...second, origin },
      body: "{}",
    });
    expect(signOut.status).toBe(200);
    expect(JSON.parse(signOut.body).result.data).toEqual({ revoked: 2 });
    for (const browser of [first, second]) {
      expect((await send(`${fixture.server.url}${infoPath}`, { headers: browser })).status).toBe(401);
      expect((await send(`${fixture.server.url}/`, { headers: { cookie: browser.cookie } })).status).toBe(401);
    }
    expect((await send(`${fixture.server.url}${infoPath}`, { headers: await signIn() })).status).toBe(200);
    expect((await fixture.client.meta.info.query()).workspaceRoot).toBe(fixture.root);
  });

  it("expires a browser session", async () => {
    await using fixture = await startApiFixture({ browserSessionTtlMs: 300 });
    const login = await send(`${fixture.server.url}/?token=${fixture.server.token}`);
    const headers = { cookie: String(login.headers["set-cookie"]).split(";")[0]!, "x-cairn-key": String(login.headers.location).split("#cairn-key=")[1]! };
    expect((await send(`${fixture.server.url}${infoPath}`, { headers })).status).toBe(200);
    await new Promise((resolve) => setTimeout(resolve, 400));
    expect((await send(`${fixture.server.url}${infoPath}`, { headers })).status).toBe(401);
  });

  it("refuses cross-site mutations that ride on the cookie, and allows same-origin ones", async () => {
    await using fixture = await startApiFixture();
    const login = await send(`${fixture.server.url}/?token=${fixture.server.token}`);
    const browser = { cookie: String(login.headers["set-cookie"]).split(";")[0]!, "x-cairn-key": String(login.headers.location).split("#cairn-key=")[1]! };
    const url = `${fixture.server.url}${createPath}`;
    const host = new URL(fixture.server.url).host;
    const post = (headers: Record<string, string>) => send(url, { method: "POST", headers: { ...json, ...browser, ...headers }, body: "{}" });

    expect((await post({ origin: "https://evil.example", "sec-fetch-site": "cross-site" })).status).toBe(403);
    expect((await post({ origin: "https://evil.example" })).status).toBe(403);
    expect((await post({ "sec-fetch-site": "same-site" })).status).toBe(403);
    expect((await post({})).status).toBe(403);
    expect((await post({ origin: `http://${host}`, "sec-fetch-site": "same-origin" })).status).toBe(200);
    // Scripts with the bearer token need no Origin.
    expect((await send(url, { method: "POST", headers: { ...json, authorization: `Bearer ${fixture.server.token}` }, body: "{}" })).status).toBe(200);
    // Reads over GET stay allowed from the page without an Origin.
    expect((await send(`${fixture.server.url}${infoPath}`, { headers: browser })).status).toBe(200);
  });

  it("refuses a foreign Host on every route, login and share links included; answers its own names and --allowed-host ones", async () => {
    await using fixture = await startApiFixture({ allowedHosts: ["cairn.example.com"] });
    const { server } = fixture;
    const { sessionId } = await fixture.client.session.create.mutate();
    const shareInput = encodeURIComponent(JSON.stringify({ token: "cairn_shr_unknown" }));
    const bearer = { authorization: `Bearer ${server.token}` };
    const routes: { path: string; method?: string; headers?: Record<string, string>; body?: string }[] = [
      { path: `/?token=${server.token}` },
      { path: "/" },
      { path: infoPath, headers: bearer },
      { path: createPath, method: "POST", headers: { ...json, ...bearer }, body: "{}" },
      { path: `/api/trpc/session.events?input=${encodeURIComponent(JSON.stringify({ sessionId }))}`, headers: bearer },
      { path: `/api/share/view.session?input=${shareInput}` },
      { path: `/api/share/view.events?input=${shareInput}` },
      { path: "/share/cairn_shr_unknown" },
      { path: "/_next/static/chunks/main.js" },
    ];
    const ideHost = new URL(server.ideUrl).host;
    expect(ideHost).toMatch(/^cairn-[0-9a-f]{16}\.localhost:\d+$/);
    for (const route of routes) {
      for (const host of [
        "evil.example",
        `evil.example:${server.port}`,
        `127.0.0.1.evil.example:${server.port}`,
        `cairn-0000000000000000.localhost:${server.port}`,
      ]) {
        const response = await send(`${server.url}${route.path}`, {
          ...(route.method ? { method: route.method } : {}),
          headers: { ...route.headers, host },
          ...(route.body ? { body: route.body } : {}),
        });
        expect({ path: route.path, host, status: response.status }).toEqual({ path: route.path, host, status: 403 });
        expect(response.headers["set-cookie"]).toBeUndefined();
        expect(response.body).toContain("--allowed-host");
      }
    }
    for (const host of [`127.0.0.1:${server.port}`, `localhost:${server.port}`, ideHost, "cairn.example.com"]) {
      expect({ host, status: (await send(`${server.url}${infoPath}`, { headers: { ...bearer, host } })).status }).toEqual({ host, status: 200 });
      const login = await send(`${server.url}/?token=${server.token}`, { headers: { host } });
      expect({ host, status: login.status }).toEqual({ host, status: 303 });
    }
  });

  it("compares a cookie-borne change's Origin with the server's own origins, not with the request's Host", async () => {
    await using fixture = await startApiFixture({ allowedHosts: ["cairn.example.com"] });
    const { server } = fixture;
    const login = await send(`${server.url}/?token=${server.token}`);
    const browser = { cookie: String(login.headers["set-cookie"]).split(";")[0]!, "x-cairn-key": String(login.headers.location).split("#cairn-key=")[1]! };
    const post = (headers: Record<string, string>) =>
      send(`${server.url}${createPath}`, { method: "POST", headers: { ...json, ...browser, ...headers }, body: "{}" });
    // A page on another port of a loopback name, sending a matching Host of its own choosing.
    expect((await post({ host: `localhost:5173`, origin: "http://localhost:5173" })).status).toBe(403);
    expect((await post({ origin: `http://localhost:${server.port + 1}` })).status).toBe(403);
    expect((await post({ origin: `http://127.0.0.1:${server.port}` })).status).toBe(200);
    expect((await post({ origin: server.ideUrl })).status).toBe(200);
    expect((await post({ host: "cairn.example.com", origin: "https://cairn.example.com" })).status).toBe(200);
  });

  it("refuses an --allowed-host that is not a host name", async () => {
    const parent = await mkdtemp(join(tmpdir(), "cairn-api-hosts-"));
    try {
      const attempt = startServer({
        workerScript: localWorkerScript,
        workspace: parent,
        cairnHome: join(parent, "home"),
        version: "test",
        port: 0,
        webDir: null,
        apiKey: "x",
        baseURL: "http://127.0.0.1:9",
        allowedHosts: ["http://x/"],
      });
      await expect(attempt).rejects.toMatchObject({ code: "invalid_allowed_host" });
    } finally {
      await rm(parent, { recursive: true, force: true });
    }
  });

  it("refuses to bind a non-loopback address without an explicit token", async () => {
    const parent = await mkdtemp(join(tmpdir(), "cairn-api-bind-"));
    try {
      const attempt = startServer({
        workerScript: localWorkerScript,
        workspace: parent,
        cairnHome: join(parent, "home"),
        version: "test",
        host: "0.0.0.0",
        port: 0,
        webDir: null,
        apiKey: "x",
        baseURL: "http://127.0.0.1:9",
      });
      await expect(attempt).rejects.toBeInstanceOf(ServerConfigError);
      await expect(attempt).rejects.toMatchObject({ code: "token_required" });
    } finally {
      await rm(parent, { recursive: true, force: true });
    }
  });
});
