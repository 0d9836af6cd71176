import { request } from "node:http";
import { DELTA_ID, monotonicMs } from "./timed-sim.ts";

export type SessionEventsReader = {
  /** Resolves once the server sent tRPC's `connected` frame. */
  connected: Promise<void>;
  /** The highest event id received. */
  lastId(): number;
  /** Whether the run's `result` event came. */
  ended(): boolean;
  close(): void;
};

/**
 * A browser tab's `session.events` stream, read on a plain node:http connection of its own (a browser parses
 * its stream in its own process; fetch's web streams would cost the benchmark more than the server): records,
 * per delta id, when (CLOCK_MONOTONIC) it first arrived.
 */
export function readSessionEvents(server: { url: string; token: string }, sessionId: string, received: Map<string, number>): SessionEventsReader {
  const input = encodeURIComponent(JSON.stringify({ sessionId }));
  let closed = false;
  let lastId = 0;
  let ended = false;
  let outgoing: ReturnType<typeof request> | undefined;
  const connected = new Promise<void>((resolve, reject) => {
    outgoing = request(
      `${server.url}/api/trpc/session.events?input=${input}`,
      { agent: false, headers: { authorization: `Bearer ${server.token}`, accept: "text/event-stream" } },
      (response) => {
        if (response.statusCode !== 200) reject(new Error(`session.events answered ${response.statusCode}`));
        let buffer = "";
        response.on("data", (chunk: Buffer) => {
          const at = monotonicMs();
          buffer += chunk.toString("latin1");
          let end: number;
          while ((end = buffer.indexOf("\n\n")) >= 0) {
            const frame = buffer.slice(0, end);
            buffer = buffer.slice(end + 2);
            if (frame.startsWith("event: connected") || frame.includes("\nevent: connected")) resolve();
            const id = /^id: ?(\d+)$/m.exec(frame)?.[1];
            if (id !== undefined) lastId = Math.max(lastId, Number(id));
            if (frame.includes('"type":"result"')) ended = true;
            if (!frame.includes("text-delta")) continue;
            for (const delta of frame.match(DELTA_ID) ?? []) if (!received.has(delta)) received.set(delta, at);
          }
        });
        response.on("error", (error) => {
          if (!closed) reject(error);
        });
      },
    );
    outgoing.on("error", (error) => {
      if (!closed) reject(error);
    });
    outgoing.end();
  });
  return {
    connected,
    lastId: () => lastId,
    ended: () => ended,
    close() {
      closed = true;
      outgoing?.destroy();
    },
  };
}
