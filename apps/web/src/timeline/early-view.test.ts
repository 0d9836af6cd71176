import { describe, expect, it } from "vitest";
import { earlyViewScript, takeEarlyView } from "./early-view";

type Sent = { url: string; init: { headers: Record<string, string>; credentials: string } };

/** Runs the inline script as a page would, with its globals stubbed; returns what it sent and left on `window`. */
function runScript(script: string, options: { hash?: string; key?: string | null; answer?: { ok: boolean; body: string } } = {}) {
  const window: Record<string, unknown> = {};
  const sent: Sent[] = [];
  const answer = options.answer ?? { ok: true, body: "{}" };
  const fetch = (url: string, init: Sent["init"]) => {
    sent.push({ url, init });
    return Promise.resolve({ ok: answer.ok, text: () => Promise.resolve(answer.body) });
  };
  const localStorage = { getItem: (name: string) => (name === "cairn:browser-key" ? (options.key ?? null) : null) };
  const location = { hash: options.hash ?? "" };
  const performance = { now: () => 42 };
  new Function("window", "location", "localStorage", "performance", "fetch", script)(window, location, localStorage, performance, fetch);
  return { window, sent };
}

const viewAnswer = { changed: true, timelineJson: '{"version":"v1"}', complete: false, rest: { version: "v1", from: 500, total: 100_000 } };

describe("earlyViewScript", () => {
  it("asks timeline.view for the session as the tRPC client does, with the browser key in its header", async () => {
    const { window, sent } = runScript(earlyViewScript("abc_1-2"), { key: "k".repeat(20) });
    expect(sent).toEqual([
      {
        url: `/api/trpc/timeline.view?input=${encodeURIComponent('{"sessionId":"abc_1-2"}')}`,
        init: { headers: { "x-cairn-key": "k".repeat(20) }, credentials: "same-origin" },
      },
    ]);
    expect(Object.keys(window)).toHaveLength(1);
  });

  it("sends nothing while a sign-in's key is still in the address bar (the page's client takes it from there)", () => {
    const { window, sent } = runScript(earlyViewScript("abc"), { hash: "#cairn-key=abcdefghijklmnop" });
    expect(sent).toEqual([]);
    expect(Object.keys(window)).toHaveLength(0);
  });

  it("cannot close its script element", () => {
    expect(earlyViewScript("abc")).not.toMatch(/<\/script/i);
  });
});

describe("takeEarlyView", () => {
  it("hands over the answer once, with when it was sent and received", async () => {
    const { window } = runScript(earlyViewScript("abc"), { answer: { ok: true, body: JSON.stringify({ result: { data: viewAnswer } }) } });
    expect(await takeEarlyView("abc", window)).toEqual({ answer: viewAnswer, sent: 42, received: 42 });
    expect(await takeEarlyView("abc", window)).toBeUndefined();
  });

  it("is undefined for another session, a failed request and an answer that is not a view", async () => {
    const other = runScript(earlyViewScript("abc"), { answer: { ok: true, body: JSON.stringify({ result: { data: viewAnswer } }) } });
    expect(await takeEarlyView("xyz", other.window)).toBeUndefined();
    const failed = runScript(earlyViewScript("abc"), { answer: { ok: false, body: JSON.stringify({ error: { message: "no" } }) } });
    expect(await takeEarlyView("abc", failed.window)).toBeUndefined();
    const odd = runScript(earlyViewScript("abc"), { answer: { ok: true, body: JSON.stringify({ result: { data: { changed: true } } }) } });
    expect(await takeEarlyView("abc", odd.window)).toBeUndefined();
    const garbage = runScript(earlyViewScript("abc"), { answer: { ok: true, body: "<html>" } });
    expect(await takeEarlyView("abc", garbage.window)).toBeUndefined();
    expect(await takeEarlyView("abc", {})).toBeUndefined();
  });
});

describe("takeEarlyView's check of the answer", () => {
  const take = async (data: unknown) =>
    takeEarlyView("abc", runScript(earlyViewScript("abc"), { answer: { ok: true, body: JSON.stringify({ result: { data } }) } }).window);

  it("takes an unchanged answer and a whole timeline without rest", async () => {
    expect((await take({ changed: false, version: "v2" }))?.answer).toEqual({ changed: false, version: "v2" });
    expect((await take({ changed: true, timelineJson: "{}", complete: true }))?.answer).toEqual({ changed: true, timelineJson: "{}", complete: true });
    expect((await take({ ...viewAnswer, detailsJson: "{}" }))?.answer).toEqual({ ...viewAnswer, detailsJson: "{}" });
  });

  it("refuses wrong types in any field", async () => {
    expect(await take({ changed: false })).toBeUndefined();
    expect(await take({ changed: "yes", timelineJson: "{}", complete: true })).toBeUndefined();
    expect(await take({ changed: true, timelineJson: {}, complete: true })).toBeUndefined();
    expect(await take({ changed: true, timelineJson: "{}", complete: "no" })).toBeUndefined();
    expect(await take({ ...viewAnswer, rest: { version: "v1", from: -1, total: 3 } })).toBeUndefined();
    expect(await take({ ...viewAnswer, rest: { version: "v1", from: 1.5, total: 3 } })).toBeUndefined();
    expect(await take({ ...viewAnswer, rest: { version: 1, from: 1, total: 3 } })).toBeUndefined();
    expect(await take([viewAnswer])).toBeUndefined();
    expect(await take({ ...viewAnswer, detailsJson: {} })).toBeUndefined();
  });
});
