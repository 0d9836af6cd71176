import { describe, expect, it } from "vitest";
import { appRouter, shareViewRouter } from "@cairn/api";
import { eventually } from "./api-harness.ts";
import { send } from "./api-harness.ts";
import { prompt, ShareEventsReader, startShareFixture, text } from "./share-support.ts";

type ProcedureDefs = Record<string, { _def: { type: "query" | "mutation" | "subscription" } }>;
const proceduresOf = (router: { _def: { procedures: object } }) =>
  Object.entries(router._def.procedures as ProcedureDefs).map(([path, procedure]) => ({ path, type: procedure._def.type }));
const json = { "content-type": "application/json" };

describe("what a share token can reach", () => {
  it("opens none of the main router: every procedure answers 401 to a share token in any position", async () => {
    await using fixture = await startShareFixture({ scenario: { turns: [text("hello")] } });
    const { sessionId } = await fixture.client.session.create.mutate();
    await prompt(fixture, sessionId, "hi");
    const { token } = await fixture.client.share.create.mutate({ sessionId, mode: "live" });
    const cookie = `cairn_session_${fixture.server.port}=${token}`;
    const host = new URL(fixture.server.url).host;
    const procedures = proceduresOf(appRouter);
    const mutations = procedures.filter((procedure) => procedure.type === "mutation");
    expect(mutations.map((procedure) => procedure.path)).toEqual(
      expect.arrayContaining(["session.send", "share.create", "share.revoke", "share.fork", "workspace.write", "terminal.open"]),
    );

    for (const { path, type } of procedures) {
      const url = `${fixture.server.url}/api/trpc/${path}`;
      const method = type === "mutation" ? "POST" : "GET";
      const body = type === "mutation" ? JSON.stringify({ sessionId, token }) : undefined;
      const attempts: { headers: Record<string, string>; query: string }[] = [
        { headers: {}, query: "" },
        { headers: { authorization: `Bearer ${token}` }, query: "" },
        { headers: { cookie, "x-cairn-key": token, origin: `http://${host}`, "sec-fetch-site": "same-origin" }, query: "" },
        { headers: {}, query: `?token=${token}` },
      ];
      for (const attempt of attempts) {
        const response = await send(`${url}${attempt.query}`, { method, headers: { ...json, ...attempt.headers }, ...(body !== undefined ? { body } : {}) });
        expect({ path, status: response.status }).toEqual({ path, status: 401 });
      }
    }
    // Nothing changed: still one session, still one share, nothing sent.
    expect((await fixture.client.session.list.query()).map((session) => session.sessionId)).toEqual([sessionId]);
    expect(await fixture.client.share.list.query()).toHaveLength(1);
  });

  it("the share router has no mutation: by its definitions and over HTTP", async () => {
    const procedures = proceduresOf(shareViewRouter);
    expect(procedures).toEqual([
      { path: "view.session", type: "query" },
      { path: "view.timelineSource", type: "query" },
      { path: "view.events", type: "subscription" },
    ]);

    await using fixture = await startShareFixture({ scenario: { turns: [text("hello")] } });
    const { sessionId } = await fixture.client.session.create.mutate();
    await prompt(fixture, sessionId, "hi");
    const { token } = await fixture.client.share.create.mutate({ sessionId, mode: "live" });
    const body = JSON.stringify({ token });
    for (const path of ["view.session", "view.timelineSource", "view.events", "view.session?batch=1", "session.send", "share.revoke"]) {
      for (const method of ["POST", "PUT", "DELETE", "PATCH"]) {
        const response = await send(`${fixture.server.url}/api/share/${path}`, { method, headers: json, body });
        expect({ path, method, status: response.status }).toEqual({ path, method, status: 405 });
      }
    }
    // Main-router procedure names do not exist under the share prefix.
    const input = encodeURIComponent(JSON.stringify({ sessionId }));
    expect((await send(`${fixture.server.url}/api/share/session.get?input=${input}`)).status).toBe(404);
    expect((await send(`${fixture.server.url}/api/share/share.list`)).status).toBe(404);
  });

  it("reaches only the shared session: a sessionId in the input is ignored", async () => {
    const other = "the other session's words";
    await using fixture = await startShareFixture({ scenario: { turns: [text("shared words"), text(other), text("more shared words")] } });
    const { client, viewer } = fixture;
    const shared = await client.session.create.mutate();
    await prompt(fixture, shared.sessionId, "shared prompt");
    const hidden = await client.session.create.mutate();
    const { token } = await client.share.create.mutate({ sessionId: shared.sessionId, mode: "live" });

    const forged = { token, sessionId: hidden.sessionId } as { token: string };
    const view = await viewer.view.session.query(forged);
    expect(view.title).toBe("shared prompt");
    // A raw request with the other session's id, too.
    const input = encodeURIComponent(JSON.stringify({ token, sessionId: hidden.sessionId, lastEventId: "0" }));
    const reader = new ShareEventsReader(fixture.server.url, token, "0");
    const forgedReader = new EventsWithInput(fixture.server.url, input);
    try {
      // Both viewers read one redacted log: one subscription to the session.
      await eventually(() => expect(fixture.server.hub.bus.listenerCount(shared.sessionId)).toBe(1));
      expect(fixture.server.hub.bus.listenerCount(hidden.sessionId)).toBe(0);
      await prompt(fixture, hidden.sessionId, "hidden prompt");
      await prompt(fixture, shared.sessionId, "second shared prompt");
      await eventually(() => expect(JSON.stringify(reader.data())).toContain("more shared words"));
      await eventually(() => expect(forgedReader.body).toContain("more shared words"));
      for (const seen of [JSON.stringify(reader.data()), forgedReader.body]) {
        expect(seen).not.toContain(other);
        expect(seen).not.toContain("hidden prompt");
        expect(seen).not.toContain(hidden.sessionId);
      }
    } finally {
      await reader.stop();
      await forgedReader.stop();
    }
  });

  it("no share payload carries the session's id: view, timeline source, live events", async () => {
    await using fixture = await startShareFixture({ scenario: { turns: [text("first answer"), text("second answer")] } });
    const { sessionId } = await fixture.client.session.create.mutate();
    await prompt(fixture, sessionId, "first prompt");
    const { token } = await fixture.client.share.create.mutate({ sessionId, mode: "live" });
    const reader = new ShareEventsReader(fixture.server.url, token, "0");
    try {
      await prompt(fixture, sessionId, "second prompt");
      await eventually(() => expect(JSON.stringify(reader.data())).toContain("second answer"));
      const view = await fixture.viewer.view.session.query({ token });
      const timeline = await fixture.viewer.view.timelineSource.query({ token });
      expect(timeline.lines.length).toBeGreaterThan(2);
      expect(JSON.stringify(view)).toContain("first answer");
      for (const payload of [view, timeline, reader.data()]) expect(JSON.stringify(payload)).not.toContain(sessionId);
      expect(timeline.lines.every((line) => !("sessionId" in line))).toBe(true);
    } finally {
      await reader.stop();
    }
  });

  it("sends no-referrer, noindex, no-store and a strict CSP on share pages and the share API; other paths still need the token", async () => {
    await using fixture = await startShareFixture({ scenario: { turns: [text("hello")] } });
    const { sessionId } = await fixture.client.session.create.mutate();
    await prompt(fixture, sessionId, "hi");
    const { token } = await fixture.client.share.create.mutate({ sessionId, mode: "snapshot" });
    const url = fixture.server.url;
    const input = encodeURIComponent(JSON.stringify({ token }));
    const api = await send(`${url}/api/share/view.session?input=${input}`);
    const apiMissing = await send(`${url}/api/share/view.session?input=${encodeURIComponent(JSON.stringify({ token: "nope" }))}`);
    const page = await send(`${url}/share/${token}`);
    const pageAgain = await send(`${url}/share/${token}`);
    expect(api.status).toBe(200);
    expect(apiMissing.status).toBe(404);
    // No web app in this test server: the page route is reached without a cookie and answers 404, not 401.
    expect(page.status).toBe(404);
    for (const response of [api, apiMissing, page]) {
      expect(response.headers["referrer-policy"]).toBe("no-referrer");
      expect(response.headers["x-robots-tag"]).toBe("noindex, nofollow");
      expect(response.headers["cache-control"]).toBe("no-store");
      expect(response.headers["x-content-type-options"]).toBe("nosniff");
    }
    expect(api.headers["content-security-policy"]).toBe("default-src 'none'; frame-ancestors 'none'");
    const csp = String(page.headers["content-security-policy"]);
    const directives = new Map(
      csp.split(";").map((directive) => {
        const [name = "", ...values] = directive.trim().split(/\s+/);
        return [name, values.join(" ")];
      }),
    );
    expect(directives.get("default-src")).toBe("'self'");
    expect(directives.get("script-src")).toMatch(/^'self' 'nonce-[A-Za-z0-9+/]{24}' 'strict-dynamic'$/);
    expect(directives.get("object-src")).toBe("'none'");
    expect(directives.get("base-uri")).toBe("'none'");
    expect(directives.get("frame-ancestors")).toBe("'none'");
    expect(directives.get("connect-src")).toBe("'self'");
    expect(directives.get("img-src")).toBe("'self' data:");
    expect(csp).not.toMatch(/unsafe-eval|https?:|\*/);
    expect(csp).not.toMatch(/script-src[^;]*unsafe-inline/);
    // A fresh nonce per response.
    expect(pageAgain.headers["content-security-policy"]).not.toBe(csp);

    // Dot segments and encodings do not turn a share path into a way past the access check.
    for (const path of [`/share/../api/trpc/session.list`, `/share/%2e%2e/api/trpc/session.list`, `/api/share/../trpc/session.list`, `/share//x`, `/shares`]) {
      expect({ path, status: (await send(`${url}${path}`)).status }).toEqual({ path, status: 401 });
    }
    expect((await send(`${url}/api/trpc/session.list`)).headers["x-robots-tag"]).toBeUndefined();
    // Page assets load without the cookie (404 here: no web app); writes to page paths need it (server actions).
    expect((await send(`${url}/_next/static/chunks/main.js`)).status).toBe(404);
    for (const method of ["POST", "PUT", "DELETE"]) {
      expect((await send(`${url}/share/${token}`, { method, headers: { "next-action": "x" }, body: "[]" })).status).toBe(401);
      expect((await send(`${url}/_next/static/chunks/main.js`, { method, body: "[]" })).status).toBe(401);
    }
  });
});

/** A raw view.events stream with a hand-made input (fields the typed client would refuse). */
class EventsWithInput {
  body = "";
  private readonly controller = new AbortController();
  private readonly done: Promise<void>;

  constructor(url: string, input: string) {
    this.done = (async () => {
      try {
        const response = await fetch(`${url}/api/share/view.events?input=${input}`, {
          headers: { accept: "text/event-stream" },
          signal: this.controller.signal,
        });
        if (!response.body) return;
        const decoder = new TextDecoder();
        for await (const chunk of response.body) this.body += decoder.decode(chunk as Uint8Array, { stream: true });
      } catch (error) {
        if (!this.controller.signal.aborted) throw error;
      }
    })();
  }

  async stop(): Promise<void> {
    this.controller.abort();
    await this.done;
  }
}
