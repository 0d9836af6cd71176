/**
 * tRPC's server-sent-events wire format (as `sseStreamProducer` of @trpc/server 11 writes it), for responses
 * written without its stream machinery. `httpSubscriptionLink` reads these frames: `connected` first with the
 * client options, then one `data` frame per value (with its `id` for a `tracked()` value), `ping` frames while
 * nothing else is sent, and `serialized-error` or `return` at the end. Every frame ends with a blank line after
 * its last field's newline, exactly as tRPC writes it (trpc-sse-wire.test.ts compares the bytes).
 */

/** The headers tRPC's fetch handler gives a subscription response. */
export const SSE_RESPONSE_HEADERS: Readonly<Record<string, string>> = {
  vary: "trpc-accept, accept",
  "content-type": "text/event-stream",
  "cache-control": "no-cache, no-transform",
  "x-accel-buffering": "no",
  connection: "keep-alive",
};

/** What the client is told in the `connected` frame. */
export type SseClientOptions = { reconnectAfterInactivityMs?: number };

export function connectedFrame(client: SseClientOptions): string {
  return `event: connected\ndata: ${JSON.stringify(client)}\n\n\n`;
}

/** A `tracked(id, data)` value; `data` is what the transformer serialized. */
export function trackedFrame(id: string, data: unknown): string {
  return trackedJsonFrame(id, JSON.stringify(data));
}

/** A `tracked(id, data)` value whose data is already JSON (one line: `JSON.stringify` writes no newline). */
export function trackedJsonFrame(id: string, json: string): string {
  return `data: ${json}\nid: ${id}\n\n\n`;
}

export const PING_FRAME = "event: ping\ndata: \n\n\n";

/** `shape` is the error shape the router's error formatter made, serialized by the transformer. */
export function serializedErrorFrame(shape: unknown): string {
  return `event: serialized-error\ndata: ${JSON.stringify(shape)}\n\n\n`;
}
