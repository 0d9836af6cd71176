import type { ServerResponse } from "node:http";
import type { Socket } from "node:net";
import type { EventBatch } from "../hub/event-stream.ts";
import type { SequencedEvent } from "../router/context.ts";
import {
  connectedFrame,
  PING_FRAME,
  serializedErrorFrame,
  SSE_RESPONSE_HEADERS,
  type SseClientOptions,
  trackedFrame,
  trackedJsonFrame,
} from "./trpc-sse-wire.ts";

/** Where the events come from: a session's event feed (`EventFeed`), or anything shaped like it. */
export type BatchedEventSource = {
  /** Calls `onPublished` whenever events may be ready; returns the unsubscribe. */
  listen(onPublished: () => void): () => void;
  /** What is there after the subscriber's cursor: at once when it is at hand, or a promise. */
  take(): EventBatch | Promise<EventBatch>;
};

export type EventStreamResponseOptions = {
  response: ServerResponse;
  source: BatchedEventSource;
  client: SseClientOptions;
  /** A `ping` frame after this long without any other frame. */
  pingIntervalMs: number;
  /** The router's transformer (its output side). */
  serialize: (value: unknown) => unknown;
  /**
   * The transformer leaves values as they are, so an event's frame data is `JSON.stringify(event)`: an entry the bus
   * hands over with that JSON (`SequencedEvent.json`, the Redis stream's payload) is written without serializing it again.
   */
  serializeKeepsValues?: boolean;
  /** Frames made this turn, shared by every response of a route (see `TurnFrameCache`). */
  frameCache?: TurnFrameCache;
  /** The serialized-error data for a failure while reading, as the router's error formatter shapes it. */
  errorShape: (error: unknown) => unknown;
};

/**
 * The frames made during one turn of the event loop, by bus entry: a session's tabs read what it published in the
 * same turn and are handed the same entry objects, so each event is serialized once for all of them. Emptied at the
 * next turn, so it holds no more than one turn's frames (the bus keeps thousands of entries per session).
 */
export class TurnFrameCache {
  private readonly frames = new Map<SequencedEvent, string>();

  get(item: SequencedEvent): string | undefined {
    return this.frames.get(item);
  }

  set(item: SequencedEvent, frame: string): void {
    if (this.frames.size === 0) setImmediate(() => this.frames.clear());
    this.frames.set(item, frame);
  }
}

/**
 * A live `session.events` response written straight to the socket in tRPC's SSE wire format. What a session
 * publishes within one turn of the event loop goes out as one socket write per subscriber: a publish only
 * schedules a read (setImmediate), and the read takes every event after the subscriber's cursor at once.
 * While the socket's buffer is full nothing is read; the subscriber's cursor stays on the bus, so a slow
 * reader costs no memory here and catches up with adjacent deltas joined (or a resync and backfill when
 * it fell out of the replay window). The client going away unsubscribes and stops the ping timer.
 *
 * Once the head and the first frame are out, a chunked HTTP/1.1 response's frames go to its socket as ready-made
 * chunks (`<size>\r\n<frames>\r\n`, the bytes Node's `response.write` would send): one `socket.write` per batch
 * instead of four buffered writes, a cork, and a `writev` on the next tick. Node's own writes (the error frame and
 * the last chunk at the end) still follow in order on the same socket.
 */
export class EventStreamResponse {
  private closed = false;
  private scheduled = false;
  private reading = false;
  private readAgain = false;
  private waitingForDrain = false;
  private unsubscribe: () => void = () => undefined;
  /** Where the frames go as chunks once the head is out (see the class comment); undefined: through `response.write`. */
  private socket: Socket | undefined;
  private readonly options: EventStreamResponseOptions;
  private readonly ping: NodeJS.Timeout;

  constructor(options: EventStreamResponseOptions) {
    this.options = options;
    this.ping = setTimeout(() => this.sendPing(), options.pingIntervalMs);
    this.ping.unref();
  }

  /** Writes the head and the `connected` frame, then follows the source until the client goes away. */
  start(): void {
    const { response, source } = this.options;
    response.once("close", () => this.close());
    if (response.destroyed) {
      this.close();
      return;
    }
    response.statusCode = 200;
    for (const [name, value] of Object.entries(SSE_RESPONSE_HEADERS)) response.setHeader(name, value);
    this.write(connectedFrame(this.options.client));
    // A response waiting behind another on its connection (pipelining) has no socket yet; an HTTP/1.0 one is not chunked.
    if (response.chunkedEncoding && response.socket) this.socket = response.socket;
    // Listen first, then read what is already there: nothing published in between is missed.
    this.unsubscribe = source.listen(() => this.schedule());
    this.schedule();
  }

  private schedule(): void {
    if (this.scheduled || this.closed) return;
    this.scheduled = true;
    setImmediate(() => {
      this.scheduled = false;
      this.read();
    });
  }

  /** Takes what the source has: the live case (events in memory) synchronously, without a promise per read. */
  private read(): void {
    if (this.closed || this.waitingForDrain) return;
    if (this.reading) {
      this.readAgain = true;
      return;
    }
    this.reading = true;
    this.readAgain = false;
    let taken: EventBatch | Promise<EventBatch>;
    try {
      taken = this.options.source.take();
    } catch (error) {
      this.failed(error);
      return;
    }
    if (taken instanceof Promise) taken.then(this.took, this.failed);
    else this.took(taken);
  }

  private readonly took = (batch: EventBatch): void => {
    this.reading = false;
    if (this.closed) return;
    try {
      if (batch.events.length > 0) this.write(this.frames(batch.events));
    } catch (error) {
      this.fail(error);
      return;
    }
    if (batch.more) this.readAgain = true;
    if (this.readAgain) this.schedule();
  };

  private readonly failed = (error: unknown): void => {
    this.reading = false;
    this.fail(error);
  };

  private frames(events: readonly SequencedEvent[]): string {
    const { serialize, frameCache, serializeKeepsValues } = this.options;
    let text = "";
    for (const item of events) {
      if (serializeKeepsValues && item.json !== undefined) {
        text += trackedJsonFrame(String(item.seq), item.json);
        continue;
      }
      let frame = frameCache?.get(item);
      if (frame === undefined) {
        frame = trackedFrame(String(item.seq), serialize(item.event));
        frameCache?.set(item, frame);
      }
      text += frame;
    }
    return text;
  }

  private write(frames: string): void {
    const { response } = this.options;
    this.ping.refresh();
    const socket = this.socket;
    if (socket ? socket.write(`${Buffer.byteLength(frames).toString(16)}\r\n${frames}\r\n`) : response.write(frames)) return;
    this.waitingForDrain = true;
    (socket ?? response).once("drain", this.drained);
  }

  private readonly drained = (): void => {
    this.waitingForDrain = false;
    this.schedule();
  };

  private sendPing(): void {
    if (this.closed) return;
    // A client that has not taken what was written yet needs no ping; the timer waits for the next quiet spell.
    if (this.waitingForDrain) this.ping.refresh();
    else this.write(PING_FRAME);
  }

  /** Reading failed: the client is told why in a serialized-error frame and the stream ends, as a tRPC subscription does. */
  private fail(error: unknown): void {
    if (this.closed) return;
    const { response, errorShape, serialize } = this.options;
    this.close();
    response.end(serializedErrorFrame(serialize(errorShape(error))));
  }

  private close(): void {
    if (this.closed) return;
    this.closed = true;
    this.unsubscribe();
    clearTimeout(this.ping);
    this.options.response.off("drain", this.drained);
    this.socket?.off("drain", this.drained);
  }
}
