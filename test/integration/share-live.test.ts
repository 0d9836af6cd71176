import { describe, expect, it } from "vitest";
import { SHARE_NOT_FOUND_MESSAGE } from "@cairn/api";
import { eventually } from "./api-harness.ts";
import { errorOf, prompt, ShareEventsReader, startShareFixture, text, type ShareFixture } from "./share-support.ts";

const SECRET = "sk-ant-api03-AbCdEfGhIjKlMnOpQrStUvWxYz0123456789-_AbCdEfGhIjKlMnOp";
const DAY = 86_400_000;

/** A live share of a session that has answered once, and a viewer's open event stream on it. */
async function openLiveShare(fixture: ShareFixture, options: { expiresInDays?: number } = {}) {
  const { sessionId } = await fixture.client.session.create.mutate();
  await prompt(fixture, sessionId, "first");
  const share = await fixture.client.share.create.mutate({ sessionId, mode: "live", ...options });
  const view = await fixture.viewer.view.session.query({ token: share.token });
  const reader = new ShareEventsReader(fixture.server.url, share.token, view.lastEventId);
  // The stream is open once the session's bus has the viewer as a listener.
  await eventually(() => expect(fixture.server.hub.bus.listenerCount(sessionId)).toBe(1));
  return { sessionId, share, view, reader };
}

/** The stream ended with the share router's NOT_FOUND, within `withinMs` of `since`. */
async function expectCut(reader: ShareEventsReader, since: number, withinMs: number): Promise<void> {
  await reader.done;
  expect(Date.now() - since).toBeLessThan(withinMs);
  const last = reader.messages.at(-1);
  expect(last?.event).toBe("serialized-error");
  expect(last?.data).toContain(SHARE_NOT_FOUND_MESSAGE);
  expect(last?.data).toContain("NOT_FOUND");
}

describe("live shares", () => {
  it("stream the running session to a viewer, redacted, with tracked ids", async () => {
    await using fixture = await startShareFixture({
      scenario: { turns: [text("hello"), { ...text(`the key is ${SECRET}\nand more text\n`.repeat(3)), chunkDelayMs: 2 }] },
    });
    const { sessionId, view, reader } = await openLiveShare(fixture);
    try {
      expect(view).toMatchObject({ mode: "live", running: false, pinnedMessageUuid: null });
      expect(view.lastEventId).toMatch(/^\d+$/);
      await prompt(fixture, sessionId, "show me the key");
      await eventually(() => expect(reader.data().some((event) => (event as { type: string }).type === "result")).toBe(true));
      const raw = reader.messages.map((message) => message.data).join("\n");
      expect(raw).not.toContain(SECRET);
      expect(raw).not.toContain(SECRET.slice(0, 30));
      const deltas = reader.data().flatMap((event) => ((event as { type: string }).type === "text-delta" ? [(event as { text: string }).text] : []));
      expect(deltas.join("")).toBe("the key is [REDACTED:anthropic-key]\nand more text\n".repeat(3));
      const ids = reader.messages.filter((message) => message.id !== undefined).map((message) => Number(message.id));
      expect(ids[0]).toBeGreaterThan(Number(view.lastEventId));
      expect([...ids].sort((left, right) => left - right)).toEqual(ids);
      expect(reader.ended).toBe(false);
    } finally {
      await reader.stop();
    }
    await eventually(() => expect(fixture.server.hub.bus.listenerCount(sessionId)).toBe(0));
    expect(fixture.server.shares.listenerCount()).toBe(0);
  });

  it("end at once when the share is revoked", async () => {
    await using fixture = await startShareFixture({ scenario: { turns: [text("hello")] } });
    const { sessionId, share, reader } = await openLiveShare(fixture);
    const since = Date.now();
    await fixture.client.share.revoke.mutate({ shareId: share.shareId });
    await expectCut(reader, since, 2_000);
    await eventually(() => expect(fixture.server.hub.bus.listenerCount(sessionId)).toBe(0));
  });

  it("end at once when the share is rotated (the stream was opened with the old token)", async () => {
    await using fixture = await startShareFixture({ scenario: { turns: [text("hello")] } });
    const { share, reader } = await openLiveShare(fixture);
    const since = Date.now();
    const rotated = await fixture.client.share.rotate.mutate({ shareId: share.shareId });
    await expectCut(reader, since, 2_000);
    const again = new ShareEventsReader(fixture.server.url, rotated.token, null);
    try {
      await eventually(() => expect(again.data().length).toBeGreaterThan(0));
      expect(again.ended).toBe(false);
    } finally {
      await again.stop();
    }
  });

  it("end within a second or two when the share expires", async () => {
    await using fixture = await startShareFixture({ scenario: { turns: [text("hello")] } });
    const { reader } = await openLiveShare(fixture, { expiresInDays: 1 });
    fixture.advance(DAY);
    await expectCut(reader, Date.now(), 2_000);
  });

  it("are the only ones with events: a snapshot share's stream gets the same NOT_FOUND", async () => {
    await using fixture = await startShareFixture({ scenario: { turns: [text("hello")] } });
    const { sessionId } = await fixture.client.session.create.mutate();
    await prompt(fixture, sessionId, "first");
    const snapshot = await fixture.client.share.create.mutate({ sessionId, mode: "snapshot" });
    const reader = new ShareEventsReader(fixture.server.url, snapshot.token, null);
    await reader.done;
    expect(reader.messages.at(-1)?.event).toBe("serialized-error");
    expect(reader.messages.at(-1)?.data).toContain(SHARE_NOT_FOUND_MESSAGE);
    expect(await errorOf(fixture.viewer.view.session.query({ token: "cairn_shr_nope" }))).toMatchObject({
      code: "NOT_FOUND",
      message: SHARE_NOT_FOUND_MESSAGE,
    });
  });
});
