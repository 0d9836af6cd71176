import { MessageChannel } from "node:worker_threads";
import { afterEach, describe, expect, it } from "vitest";
import { ApiError } from "../router/errors.ts";
import type { StoredLineTexts } from "../session-store/session-store.ts";
import { answerRows, rowsOverThread } from "./rows-over-thread.ts";
import type { LineStore } from "./store-timeline-cache.ts";

const rows = (count: number, prefix: string) => Array.from({ length: count }, (_, index) => `{"${prefix}":${index}}`);

describe("rows over a thread boundary", () => {
  const channels: MessageChannel[] = [];
  afterEach(() => {
    for (const channel of channels.splice(0)) {
      channel.port1.close();
      channel.port2.close();
    }
  });

  /** The timeline thread's store on one port, the owning thread answering from `store` on the other; each part counted. */
  const connect = (store: LineStore) => {
    const channel = new MessageChannel();
    channels.push(channel);
    const parts: number[] = [];
    channel.port2.on("message", (message) => {
      answerRows(message, store, (reply) => {
        if ("part" in reply) parts.push(reply.part.texts.length);
        channel.port2.postMessage(reply);
      });
    });
    return { remote: rowsOverThread(channel.port1), parts };
  };

  it("hands over what the store read, rows sent in parts of 2,000, with the counts asked for passed on", async () => {
    const stored: StoredLineTexts = {
      texts: rows(4_500, "main"),
      total: 4_600,
      sidechains: [
        { agentId: "a1", description: "First helper", texts: rows(2_100, "a1"), total: 2_100 },
        { agentId: "a2", description: undefined, texts: [], total: 7 },
      ],
    };
    const asked: Array<[number, Record<string, number>]> = [];
    const { remote, parts } = connect({
      async lineTexts(_sessionId, afterLine, afterSidechains = new Map()) {
        asked.push([afterLine, Object.fromEntries(afterSidechains)]);
        return stored;
      },
    });
    expect(await remote.lineTexts("s1", 100, new Map([["a2", 7]]))).toEqual(stored);
    expect(asked).toEqual([[100, { a2: 7 }]]);
    expect(parts).toEqual([2_000, 2_000, 500, 2_000, 100]);
  });

  it("passes on no session, and a failure as the same ApiError", async () => {
    let fail = false;
    const { remote } = connect({
      async lineTexts() {
        if (fail) throw new ApiError("session_not_found", "No session s2");
        return undefined;
      },
    });
    expect(await remote.lineTexts("s2", 0)).toBeUndefined();
    fail = true;
    const failure = await remote.lineTexts("s2", 0).catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(ApiError);
    expect(failure).toMatchObject({ code: "session_not_found", message: "No session s2" });
  });
});
