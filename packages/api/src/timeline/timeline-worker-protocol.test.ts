import { MessageChannel } from "node:worker_threads";
import { afterEach, describe, expect, it } from "vitest";
import { ApiError } from "../router/errors.ts";
import type { TimelinePort } from "./timeline-port.ts";
import { errorOf, serveTimelineRequests, type TimelineWorkerResponse } from "./timeline-worker-protocol.ts";

type Served = Pick<TimelinePort, "view" | "page" | "detail" | "search">;

let channel: MessageChannel | undefined;
afterEach(() => {
  channel?.port1.close();
  channel = undefined;
});

/** The service served on one end of a channel; `ask` sends a message from the other and waits for its answer. */
function serve(service: Served) {
  channel = new MessageChannel();
  const { port1: client, port2: server } = channel;
  serveTimelineRequests(server, service);
  const answers = new Map<number, (response: TimelineWorkerResponse) => void>();
  const order: number[] = [];
  client.on("message", (response: TimelineWorkerResponse) => {
    order.push(response.id);
    answers.get(response.id)?.(response);
  });
  const ask = (message: Record<string, unknown> & { id: number }) =>
    new Promise<TimelineWorkerResponse>((resolve) => {
      answers.set(message.id, resolve);
      client.postMessage(message);
    });
  return { ask, order };
}

const unused = () => Promise.reject(new Error("not used"));
const base: Served = { view: unused, page: unused, detail: unused, search: unused };

describe("serveTimelineRequests", () => {
  it("answers each method from the service with its arguments", async () => {
    const { ask } = serve({
      view: async (sessionId, knownVersion) => ({ changed: false, version: `${sessionId}:${knownVersion}` }),
      page: async (sessionId, version, from) => ({ stale: false, pageJson: `${sessionId}/${version}/${from}` }),
      detail: async (_sessionId, eventId) => ({ version: "v", detail: { kind: "prompt", text: eventId } }),
      search: async (_sessionId, query) => ({ version: "v", indices: [query.length] }),
    });
    expect(await ask({ id: 1, method: "view", sessionId: "s", knownVersion: "k" })).toEqual({ id: 1, ok: true, value: { changed: false, version: "s:k" } });
    expect(await ask({ id: 2, method: "page", sessionId: "s", version: "v", from: 20 })).toEqual({
      id: 2,
      ok: true,
      value: { stale: false, pageJson: "s/v/20" },
    });
    expect(await ask({ id: 3, method: "detail", sessionId: "s", eventId: "e1" })).toMatchObject({ ok: true, value: { detail: { text: "e1" } } });
    expect(await ask({ id: 4, method: "search", sessionId: "s", query: "abc" })).toMatchObject({ ok: true, value: { indices: [3] } });
  });

  it("answers a quick request while a slow one is still working", async () => {
    let finishSlow: () => void = () => undefined;
    const { ask, order } = serve({
      ...base,
      view: () => new Promise((resolve) => (finishSlow = () => resolve({ changed: false, version: "slow" }))),
      search: async () => ({ version: "v", indices: [] }),
    });
    const slow = ask({ id: 1, method: "view", sessionId: "s" });
    await ask({ id: 2, method: "search", sessionId: "s", query: "q" });
    finishSlow();
    await slow;
    expect(order).toEqual([2, 1]);
  });

  it("sends an ApiError back with its code, other failures with their message", async () => {
    const { ask } = serve({
      ...base,
      view: () => Promise.reject(new ApiError("session_not_found", "No session s")),
      search: () => Promise.reject(new Error("disk on fire")),
    });
    const missing = await ask({ id: 1, method: "view", sessionId: "s" });
    expect(missing).toEqual({ id: 1, ok: false, error: { message: "No session s", code: "session_not_found", details: {} } });
    const error = errorOf((missing as { error: Parameters<typeof errorOf>[0] }).error);
    expect(error).toBeInstanceOf(ApiError);
    expect((error as ApiError).code).toBe("session_not_found");
    const failed = await ask({ id: 2, method: "search", sessionId: "s", query: "q" });
    expect(failed).toEqual({ id: 2, ok: false, error: { message: "disk on fire" } });
    expect(errorOf((failed as { error: Parameters<typeof errorOf>[0] }).error)).not.toBeInstanceOf(ApiError);
  });

  it("refuses a malformed request that has an id", async () => {
    const { ask } = serve(base);
    const answer = await ask({ id: 7, method: "delete", sessionId: "s" });
    expect(answer).toMatchObject({ id: 7, ok: false });
    expect((answer as { error: { message: string } }).error.message).toContain("Not a timeline request");
  });
});
