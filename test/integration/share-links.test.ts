import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { hashShareToken, SHARE_NOT_FOUND_MESSAGE } from "@cairn/api";
import { send } from "./api-harness.ts";
import { errorCode, errorOf, prompt, startShareFixture, text } from "./share-support.ts";

const DAY = 86_400_000;
const GITHUB_TOKEN = "ghp_AbCdEfGhIjKlMnOpQrStUvWxYz0123456789";

describe("share links over HTTP", () => {
  it("creates a snapshot share pinned at the last message, lists it, and serves it redacted to a viewer without a cookie", async () => {
    await using fixture = await startShareFixture();
    const { client, viewer } = fixture;
    fixture.sim.setScenario({ turns: [text(`Your token is ${GITHUB_TOKEN}; the config is in ${fixture.root}/.env`), text("after the snapshot")] });
    const { sessionId } = await client.session.create.mutate();
    await prompt(fixture, sessionId, "where is my token?");
    const messages = (await client.session.get.query({ sessionId })).messages;

    const preview = await client.share.preview.query({ sessionId, mode: "snapshot" });
    expect(preview).toEqual({ messageCount: 2, hits: [{ kind: "github-token", count: 1, examples: ["ghp_AbC…89"] }] });

    const created = await client.share.create.mutate({ sessionId, mode: "snapshot" });
    expect(created.token).toMatch(/^cairn_shr_[A-Za-z0-9_-]{43}$/);
    expect(created.url).toBe(`/share/${created.token}`);
    expect(created.pinnedMessageUuid).toBe(messages.at(-1)?.uuid);
    expect(Date.parse(created.expiresAt) - Date.now()).toBeGreaterThan(29.9 * DAY);
    // On disk: the token's SHA-256, never the token.
    const stored = ["", "-wal"]
      .map((suffix) => join(fixture.cairnHome, `shares.db${suffix}`))
      .filter((path) => existsSync(path))
      .map((path) => readFileSync(path).toString("latin1"))
      .join("");
    expect(stored).toContain(hashShareToken(created.token));
    expect(stored).not.toContain(created.token.slice("cairn_shr_".length));

    // The session goes on; the snapshot does not.
    await prompt(fixture, sessionId, "and then?");
    const view = await viewer.view.session.query({ token: created.token });
    expect(view).toMatchObject({
      title: "where is my token?",
      mode: "snapshot",
      running: false,
      pinnedMessageUuid: created.pinnedMessageUuid,
      lastEventId: null,
    });
    expect(view.messages.map((message) => message.uuid)).toEqual(messages.map((message) => message.uuid));
    const shown = JSON.stringify(view.messages);
    expect(shown).not.toContain(GITHUB_TOKEN);
    expect(shown).toContain("[REDACTED:github-token]");
    expect(shown).not.toContain(fixture.root);
    expect(shown).toContain("./.env");

    const listed = await client.share.list.query();
    expect(listed).toEqual([
      expect.objectContaining({
        shareId: created.shareId,
        sessionId,
        title: "where is my token?",
        mode: "snapshot",
        status: "active",
        viewCount: 1,
        revokedAt: null,
      }),
    ]);
    expect(listed[0]?.lastAccessAt).not.toBeNull();
    expect(JSON.stringify(listed)).not.toContain(created.token);
  });

  it("gives wrong, malformed, expired and revoked tokens the same NOT_FOUND", async () => {
    await using fixture = await startShareFixture({ scenario: { turns: [text("hello")] } });
    const { client, viewer } = fixture;
    const { sessionId } = await client.session.create.mutate();
    await prompt(fixture, sessionId, "hi");
    const expiring = await client.share.create.mutate({ sessionId, mode: "live", expiresInDays: 1 });
    const revoked = await client.share.create.mutate({ sessionId, mode: "live" });
    const kept = await client.share.create.mutate({ sessionId, mode: "live", expiresInDays: 365 });
    expect(await client.share.revoke.mutate({ shareId: revoked.shareId })).toEqual({ revoked: true });
    expect(await client.share.revoke.mutate({ shareId: revoked.shareId })).toEqual({ revoked: false });
    expect(await errorCode(viewer.view.session.query({ token: expiring.token }))).toBe("resolved");
    fixture.advance(DAY);

    const failures = [
      await errorOf(viewer.view.session.query({ token: `cairn_shr_${"A".repeat(43)}` })),
      await errorOf(viewer.view.session.query({ token: "not-a-token" })),
      await errorOf(viewer.view.session.query({ token: `cairn_shr_${"x".repeat(5_000)}` })),
      await errorOf(viewer.view.session.query({ token: expiring.token })),
      await errorOf(viewer.view.session.query({ token: revoked.token })),
      await errorOf(viewer.view.timelineSource.query({ token: revoked.token })),
    ];
    for (const failure of failures) expect(failure).toEqual({ code: "NOT_FOUND", message: SHARE_NOT_FOUND_MESSAGE, httpStatus: 404 });
    expect(await errorCode(viewer.view.session.query({ token: kept.token }))).toBe("resolved");

    const statuses = Object.fromEntries((await client.share.list.query()).map((share) => [share.shareId, share.status]));
    expect(statuses).toEqual({ [expiring.shareId]: "expired", [revoked.shareId]: "revoked", [kept.shareId]: "active" });
    expect(await errorCode(client.share.rotate.mutate({ shareId: expiring.shareId }))).toBe("NOT_FOUND");
  });

  it("rotates: the old token fails at once, the new one opens the same share", async () => {
    await using fixture = await startShareFixture({ scenario: { turns: [text("hello")] } });
    const { client, viewer } = fixture;
    const { sessionId } = await client.session.create.mutate();
    await prompt(fixture, sessionId, "hi");
    const created = await client.share.create.mutate({ sessionId, mode: "snapshot" });
    const rotated = await client.share.rotate.mutate({ shareId: created.shareId });
    expect(rotated.token).not.toBe(created.token);
    expect(rotated.url).toBe(`/share/${rotated.token}`);
    expect(await errorCode(viewer.view.session.query({ token: created.token }))).toBe("NOT_FOUND");
    expect((await viewer.view.session.query({ token: rotated.token })).pinnedMessageUuid).toBe(created.pinnedMessageUuid);
    const [listed] = await client.share.list.query();
    expect(listed?.shareId).toBe(created.shareId);

    await client.share.revoke.mutate({ shareId: created.shareId });
    expect(await errorCode(client.share.rotate.mutate({ shareId: created.shareId }))).toBe("NOT_FOUND");
    expect(await errorCode(client.share.rotate.mutate({ shareId: "no-such-share" }))).toBe("NOT_FOUND");
  });

  it("rate-limits failed lookups per client address with 429 (the page too, never its 404), while a valid token still passes", async () => {
    await using fixture = await startShareFixture({ scenario: { turns: [text("hello")] }, share: { rateLimit: { capacity: 5, refillPerMinute: 5 } } });
    const { client, viewer } = fixture;
    const { sessionId } = await client.session.create.mutate();
    await prompt(fixture, sessionId, "hi");
    const created = await client.share.create.mutate({ sessionId, mode: "snapshot" });
    for (let attempt = 0; attempt < 5; attempt++) expect(await errorCode(viewer.view.session.query({ token: `cairn_shr_guess${attempt}` }))).toBe("NOT_FOUND");
    // The bucket is empty: more guesses get 429, on the API and on the page (which says to try again later)…
    expect(await errorOf(viewer.view.session.query({ token: "cairn_shr_guess5" }))).toMatchObject({ code: "TOO_MANY_REQUESTS", httpStatus: 429 });
    const limitedPage = await send(`${fixture.server.url}/share/cairn_shr_guess6`);
    expect(limitedPage.status).toBe(429);
    expect(limitedPage.headers["retry-after"]).toBe("60");
    expect(limitedPage.body).toContain("Try again later");
    expect(limitedPage.body).not.toMatch(/not available|does not exist/i);
    // …but the working link still opens for everyone behind this address.
    expect(await errorCode(viewer.view.session.query({ token: created.token }))).toBe("resolved");
    expect(await errorCode(viewer.view.timelineSource.query({ token: created.token }))).toBe("resolved");
    // (No web app in this server: a page that may render reaches the "API only" 404, not the 429 page.)
    expect((await send(`${fixture.server.url}/share/${created.token}`)).status).toBe(404);
    // A minute later the bucket has refilled.
    fixture.advance(60_000);
    expect(await errorCode(viewer.view.session.query({ token: "cairn_shr_guess7" }))).toBe("NOT_FOUND");
  });

  it("refuses a snapshot of an empty session, an unknown message, and expiries outside 1..365 days", async () => {
    await using fixture = await startShareFixture();
    const { client } = fixture;
    const { sessionId } = await client.session.create.mutate();
    expect(await errorCode(client.share.create.mutate({ sessionId, mode: "snapshot" }))).toBe("BAD_REQUEST");
    expect(await errorCode(client.share.create.mutate({ sessionId, mode: "live", expiresInDays: 0 }))).toBe("BAD_REQUEST");
    expect(await errorCode(client.share.create.mutate({ sessionId, mode: "live", expiresInDays: 366 }))).toBe("BAD_REQUEST");
    expect(await errorCode(client.share.preview.query({ sessionId, mode: "snapshot", messageUuid: "nope" }))).toBe("NOT_FOUND");
    const live = await client.share.create.mutate({ sessionId, mode: "live" });
    expect(live.pinnedMessageUuid).toBeNull();
  });
});

describe("the shared timeline", () => {
  it("holds the shared lines only (up to the pin), redacted", async () => {
    await using fixture = await startShareFixture();
    const { client, viewer } = fixture;
    fixture.sim.setScenario({ turns: [text(`token ${GITHUB_TOKEN} in ${fixture.root}/x`), text("after the pin")] });
    const { sessionId } = await client.session.create.mutate();
    await prompt(fixture, sessionId, "first");
    const share = await client.share.create.mutate({ sessionId, mode: "snapshot" });
    await prompt(fixture, sessionId, "second");
    const shared = (await viewer.view.session.query({ token: share.token })).messages.map((message) => message.uuid);

    const source = await viewer.view.timelineSource.query({ token: share.token });
    const messageLines = source.lines.flatMap((line) => (line.type === "user" || line.type === "assistant" || line.type === "system" ? [line.uuid] : []));
    expect(messageLines).toEqual(shared);
    expect(source.sidechains).toEqual([]);
    const serialized = JSON.stringify(source);
    expect(serialized).not.toContain(GITHUB_TOKEN);
    expect(serialized).toContain("[REDACTED:github-token]");
    expect(serialized).not.toContain(fixture.root);
    expect(serialized).not.toContain("after the pin");
  });
});
