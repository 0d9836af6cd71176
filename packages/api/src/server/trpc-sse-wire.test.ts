import { tracked } from "@trpc/server";
import { sseStreamProducer } from "@trpc/server/unstable-core-do-not-import";
import { describe, expect, it } from "vitest";
import { connectedFrame, PING_FRAME, serializedErrorFrame, trackedFrame } from "./trpc-sse-wire.ts";

/** Everything tRPC's own SSE producer writes for `values` (then its end: a `return` frame, or the error). */
async function producedByTrpc(values: AsyncIterable<unknown>, options: { pingMs?: number } = {}): Promise<string> {
  const stream = sseStreamProducer({
    data: values,
    client: { reconnectAfterInactivityMs: 5_000 },
    ping: options.pingMs === undefined ? { enabled: false } : { enabled: true, intervalMs: options.pingMs },
    formatError: ({ error }) => ({ message: (error as Error).message, code: -32603 }),
  });
  let text = "";
  const decoder = new TextDecoder();
  for await (const chunk of stream) text += decoder.decode(chunk, { stream: true });
  return text;
}

const RETURN_FRAME = "event: return\ndata: \n\n\n";

describe("tRPC SSE wire format", () => {
  it("writes connected and tracked data frames byte for byte as tRPC does", async () => {
    const events = [
      { type: "text-delta", index: 0, text: 'quote " newline \n tab \t unicode é \u2028 end' },
      { type: "session-state", running: false, nested: { list: [1, 2, null] } },
    ];
    async function* values() {
      for (const [index, event] of events.entries()) yield tracked(String(index + 41), event);
    }
    const expected = await producedByTrpc(values());
    const ours =
      connectedFrame({ reconnectAfterInactivityMs: 5_000 }) + events.map((event, index) => trackedFrame(String(index + 41), event)).join("") + RETURN_FRAME;
    expect(ours).toBe(expected);
  });

  it("writes the ping frame as tRPC does", async () => {
    async function* slow() {
      await new Promise((resolve) => setTimeout(resolve, 120));
      yield tracked("1", { type: "notice" });
    }
    const produced = await producedByTrpc(slow(), { pingMs: 40 });
    expect(produced.startsWith(connectedFrame({ reconnectAfterInactivityMs: 5_000 }) + PING_FRAME)).toBe(true);
  });

  it("writes the serialized-error frame as tRPC does", async () => {
    async function* failing(): AsyncGenerator<unknown> {
      yield tracked("7", { type: "notice" });
      throw new Error("the feed failed");
    }
    const expected = await producedByTrpc(failing());
    const ours =
      connectedFrame({ reconnectAfterInactivityMs: 5_000 }) +
      trackedFrame("7", { type: "notice" }) +
      serializedErrorFrame({ message: "the feed failed", code: -32603 });
    expect(ours).toBe(expected);
  });
});
