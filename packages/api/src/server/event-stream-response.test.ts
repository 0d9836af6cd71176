import { createServer, request, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import { type AddressInfo, connect as connectSocket } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { type EventBus, MemoryEventBus } from "../hub/event-bus.ts";
import { EventFeed } from "../hub/event-stream.ts";
import type { SequencedEvent } from "../router/context.ts";
import type { SessionEvent } from "../router/types.ts";
import { type BatchedEventSource, EventStreamResponse, TurnFrameCache } from "./event-stream-response.ts";

const notice = (code: string): SessionEvent => ({ type: "notice", level: "info", code, message: code });
const delta = (text: string): SessionEvent => ({ type: "text-delta", index: 0, text });

type Frame = { event?: string; data?: string; id?: string };

function parseFrames(text: string): Frame[] {
  return text
    .split("\n\n")
    .map((block) => block.replace(/^\n+/, ""))
    .filter((block) => block.length > 0)
    .map((block) => {
      const frame: Frame = {};
      for (const line of block.split("\n")) {
        const colon = line.indexOf(": ");
        const [field, value] = colon < 0 ? [line.replace(/:$/, ""), ""] : [line.slice(0, colon), line.slice(colon + 2)];
        if (field === "event" || field === "data" || field === "id") frame[field] = value;
      }
      return frame;
    });
}

type HarnessOptions = {
  pingIntervalMs?: number;
  /** The bus hands over each entry with its JSON, as the Redis bus does (here with a space after the colons, to tell it apart). */
  entriesWithJson?: boolean;
  serializeKeepsValues?: boolean;
};

/** The bus's entries, each with its JSON as a shared bus holds it (the Redis stream's payload). */
function withJson(bus: MemoryEventBus): EventBus {
  return {
    publish: (sessionId, event) => bus.publish(sessionId, event),
    lastSeq: (sessionId) => bus.lastSeq(sessionId),
    replay(sessionId, afterSeq) {
      const replay = bus.replay(sessionId, afterSeq);
      return { ...replay, events: replay.events.map((item) => ({ ...item, json: JSON.stringify(item.event).replaceAll('":', '": ') })) };
    },
    subscribe: (sessionId, listener) => bus.subscribe(sessionId, listener),
    listenerCount: (sessionId) => bus.listenerCount(sessionId),
    drop: (sessionId) => bus.drop(sessionId),
  };
}

/** One server whose every request becomes an EventStreamResponse over `source()`; records the writes to its sockets. */
class Harness {
  readonly bus = new MemoryEventBus({ ringSize: 5_000 });
  readonly frameCache = new TurnFrameCache();
  writes: string[] = [];
  serialized = 0;
  takes = 0;
  responses: ServerResponse[] = [];
  failTake: Error | undefined;
  private server: Server | undefined;

  source(afterSeq: number, entriesWithJson: boolean): BatchedEventSource {
    const bus = entriesWithJson ? withJson(this.bus) : this.bus;
    const feed = new EventFeed({ bus, sessionId: "s", afterSeq, backfill: async () => [notice("history")] });
    return {
      listen: (onPublished) => feed.listen(onPublished),
      take: () => {
        this.takes++;
        if (this.failTake) return Promise.reject(this.failTake);
        return feed.take();
      },
    };
  }

  async start(options: HarnessOptions = {}): Promise<string> {
    this.server = createServer((incoming: IncomingMessage, response: ServerResponse) => {
      const afterSeq = Number(new URL(incoming.url ?? "/", "http://x").searchParams.get("after") ?? 0);
      const socket = incoming.socket;
      const write = socket.write.bind(socket) as (chunk: string | Uint8Array, ...rest: unknown[]) => boolean;
      socket.write = ((chunk: string | Uint8Array, ...rest: unknown[]) => {
        this.writes.push(String(chunk));
        return write(chunk, ...rest);
      }) as typeof socket.write;
      this.responses.push(response);
      new EventStreamResponse({
        response,
        source: this.source(afterSeq, options.entriesWithJson ?? false),
        client: { reconnectAfterInactivityMs: 5_000 },
        pingIntervalMs: options.pingIntervalMs ?? 60_000,
        serialize: (value) => {
          this.serialized++;
          return value;
        },
        frameCache: this.frameCache,
        ...(options.serializeKeepsValues === undefined ? {} : { serializeKeepsValues: options.serializeKeepsValues }),
        errorShape: (error) => ({ message: (error as Error).message }),
      }).start();
    });
    await new Promise<void>((resolve) => this.server!.listen(0, "127.0.0.1", resolve));
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  async close(): Promise<void> {
    this.server?.closeAllConnections();
    await new Promise<void>((resolve) => (this.server ? this.server.close(() => resolve()) : resolve()));
  }
}

/** A client reading the stream as text; `pause()` stops reading from the socket altogether. */
function connect(url: string) {
  let text = "";
  let message: IncomingMessage | undefined;
  let ended = false;
  const outgoing = request(url, { agent: false }, (response) => {
    message = response;
    response.setEncoding("utf8");
    response.on("data", (chunk: string) => void (text += chunk));
    response.on("end", () => void (ended = true));
  });
  outgoing.on("error", () => undefined);
  outgoing.end();
  return {
    frames: () => parseFrames(text),
    dataFrames: () => parseFrames(text).filter((frame) => frame.event === undefined),
    ended: () => ended,
    headers: () => message?.headers,
    pause: () => message?.pause(),
    resume: () => message?.resume(),
    destroy: () => outgoing.destroy(),
  };
}

/** A request written by hand on a plain socket, to see the response's bytes as they are (status line, headers, chunk sizes). */
function rawRequest(url: string, version: "HTTP/1.0" | "HTTP/1.1") {
  const { hostname, port } = new URL(url);
  let bytes = "";
  const socket = connectSocket(Number(port), hostname, () => socket.write(`GET / ${version}\r\nHost: ${hostname}\r\n\r\n`));
  socket.setEncoding("utf8");
  socket.on("data", (chunk: string) => void (bytes += chunk));
  socket.on("error", () => undefined);
  return { text: () => bytes, destroy: () => socket.destroy() };
}

async function eventually(check: () => void, timeoutMs = 5_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      check();
      return;
    } catch (error) {
      if (Date.now() > deadline) throw error;
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
  }
}

const harnesses: Harness[] = [];
async function started(options: HarnessOptions = {}): Promise<{ harness: Harness; url: string }> {
  const harness = new Harness();
  harnesses.push(harness);
  return { harness, url: await harness.start(options) };
}

afterEach(async () => {
  for (const harness of harnesses.splice(0)) await harness.close();
});

describe("EventStreamResponse", () => {
  it("answers with tRPC's SSE headers and connected frame, then what was published, in one write per event-loop turn", async () => {
    const { harness, url } = await started();
    const client = connect(url);
    await eventually(() => expect(client.frames()[0]).toEqual({ event: "connected", data: '{"reconnectAfterInactivityMs":5000}' }));
    expect(client.headers()).toMatchObject({ "content-type": "text/event-stream", "cache-control": "no-cache, no-transform", "x-accel-buffering": "no" });
    const before = harness.writes.length;
    for (const code of ["a", "b", "c", "d", "e"]) harness.bus.publish("s", notice(code));
    await eventually(() => expect(client.dataFrames()).toHaveLength(5));
    expect(client.dataFrames().map((frame) => [frame.id, (JSON.parse(frame.data!) as { code: string }).code])).toEqual([
      ["1", "a"],
      ["2", "b"],
      ["3", "c"],
      ["4", "d"],
      ["5", "e"],
    ]);
    expect(harness.writes.length - before).toBe(1);
  });

  it("sends each batch as one chunk of the chunked body, straight to the socket, and ends with Node's last chunk", async () => {
    const { harness, url } = await started();
    const raw = rawRequest(url, "HTTP/1.1");
    await eventually(() => expect(raw.text()).toContain("event: connected"));
    const before = harness.writes.length;
    for (const code of ["a", "b"]) harness.bus.publish("s", notice(code));
    const frames =
      'data: {"type":"notice","level":"info","code":"a","message":"a"}\nid: 1\n\n\ndata: {"type":"notice","level":"info","code":"b","message":"b"}\nid: 2\n\n\n';
    const chunk = `${Buffer.byteLength(frames).toString(16)}\r\n${frames}\r\n`;
    await eventually(() => expect(raw.text()).toContain(chunk));
    expect(harness.writes.slice(before)).toEqual([chunk]);
    expect(raw.text()).toMatch(/^HTTP\/1\.1 200 OK\r\n[\s\S]*transfer-encoding: chunked\r\n/i);
    // A failed read ends the response through Node: its chunk and the last (empty) chunk follow the direct ones.
    harness.failTake = new Error("gone");
    harness.bus.publish("s", notice("c"));
    await eventually(() => expect(raw.text().endsWith('event: serialized-error\ndata: {"message":"gone"}\n\n\n\r\n0\r\n\r\n')).toBe(true));
    raw.destroy();
  });

  it("writes through the response when it is not chunked (an HTTP/1.0 request)", async () => {
    const { harness, url } = await started();
    const raw = rawRequest(url, "HTTP/1.0");
    await eventually(() => expect(raw.text()).toContain("event: connected"));
    harness.bus.publish("s", notice("a"));
    await eventually(() => expect(raw.text()).toContain('"code":"a","message":"a"}\nid: 1\n\n\n'));
    expect(raw.text()).not.toMatch(/transfer-encoding/i);
    expect(raw.text()).toMatch(/\r\n\r\nevent: connected\ndata: \{"reconnectAfterInactivityMs":5000\}\n\n\ndata: \{"type":"notice"/);
    raw.destroy();
  });

  it("serializes an event once for all the responses that send it", async () => {
    const { harness, url } = await started();
    const clients = [connect(url), connect(url), connect(url)];
    await eventually(() => expect(harness.bus.listenerCount("s")).toBe(3));
    for (const code of ["a", "b", "c"]) harness.bus.publish("s", notice(code));
    for (const client of clients) await eventually(() => expect(client.dataFrames().map((frame) => frame.id)).toEqual(["1", "2", "3"]));
    expect(harness.serialized).toBe(3);
  });

  it("writes an entry's JSON as the bus holds it, serializing nothing, when the transformer keeps values as they are", async () => {
    const { harness, url } = await started({ entriesWithJson: true, serializeKeepsValues: true });
    const client = connect(url);
    await eventually(() => expect(harness.bus.listenerCount("s")).toBe(1));
    for (const code of ["a", "b"]) harness.bus.publish("s", notice(code));
    await eventually(() => expect(client.dataFrames().map((frame) => frame.id)).toEqual(["1", "2"]));
    expect(client.dataFrames()[0]?.data).toBe('{"type": "notice","level": "info","code": "a","message": "a"}');
    expect(harness.serialized).toBe(0);
    // Adjacent deltas joined into one event have no JSON of their own: that one is serialized.
    harness.bus.publish("s", delta("x"));
    harness.bus.publish("s", delta("y"));
    await eventually(() => expect(client.dataFrames().map((frame) => frame.id)).toEqual(["1", "2", "4"]));
    expect(JSON.parse(client.dataFrames()[2]?.data ?? "")).toEqual(delta("xy"));
    expect(harness.serialized).toBe(1);
  });

  it("serializes an entry through the transformer when the transformer changes values, whatever JSON the bus holds", async () => {
    const { harness, url } = await started({ entriesWithJson: true, serializeKeepsValues: false });
    const client = connect(url);
    await eventually(() => expect(harness.bus.listenerCount("s")).toBe(1));
    harness.bus.publish("s", notice("a"));
    await eventually(() => expect(client.dataFrames()).toHaveLength(1));
    expect(client.dataFrames()[0]?.data).toBe('{"type":"notice","level":"info","code":"a","message":"a"}');
    expect(harness.serialized).toBe(1);
  });

  it("keeps a turn's frames for that turn only", async () => {
    const cache = new TurnFrameCache();
    const item: SequencedEvent = { seq: 1, event: notice("a") };
    cache.set(item, "frame");
    expect(cache.get(item)).toBe("frame");
    await new Promise((resolve) => setImmediate(resolve));
    expect(cache.get(item)).toBeUndefined();
  });

  it("starts after the cursor it was given (a reconnect's lastEventId)", async () => {
    const { harness, url } = await started();
    for (const code of ["a", "b", "c", "d"]) harness.bus.publish("s", notice(code));
    const client = connect(`${url}/?after=2`);
    await eventually(() => expect(client.dataFrames().map((frame) => frame.id)).toEqual(["3", "4"]));
    harness.bus.publish("s", notice("e"));
    await eventually(() => expect(client.dataFrames().map((frame) => frame.id)).toEqual(["3", "4", "5"]));
  });

  it("sends a resync and the backfill when the cursor fell out of the replay window, then the retained events", async () => {
    const { harness, url } = await started();
    for (let index = 0; index < 5_010; index++) harness.bus.publish("s", notice(String(index)));
    const client = connect(`${url}/?after=3`);
    await eventually(() => expect(client.dataFrames().at(-1)?.id).toBe("5010"));
    const frames = client.dataFrames();
    expect(frames.slice(0, 2).map((frame) => [frame.id, (JSON.parse(frame.data!) as { type: string; code?: string }).code ?? "resync"])).toEqual([
      ["10", "resync"],
      ["10", "history"],
    ]);
    expect(frames.slice(2).map((frame) => Number(frame.id))).toEqual(Array.from({ length: 5_000 }, (_, index) => index + 11));
  });

  it("stops reading from a client that does not read, then catches up with every character once (slow consumer)", async () => {
    const { harness, url } = await started();
    const client = connect(url);
    await eventually(() => expect(client.frames()).toHaveLength(1));
    client.pause();
    const chunk = "x".repeat(64 * 1024);
    let expectedText = "";
    let published = 0;
    const publish = async () => {
      const text = `${published}:${chunk}`;
      expectedText += text;
      harness.bus.publish("s", delta(text));
      published++;
      await new Promise((resolve) => setImmediate(resolve));
    };
    // Until the socket's buffers are full: then the writer must stop reading the bus, not buffer it.
    const socket = harness.responses[0]!.socket!;
    while (!socket.writableNeedDrain && published < 2_000) await publish();
    expect(socket.writableNeedDrain).toBe(true);
    const takesWhileFull = harness.takes;
    for (let index = 0; index < 8; index++) await publish();
    expect(harness.takes).toBe(takesWhileFull);
    client.resume();
    await eventually(() => expect(client.dataFrames().at(-1)?.id).toBe(String(published)));
    const frames = client.dataFrames();
    expect(frames.map((frame) => (JSON.parse(frame.data!) as { text: string }).text).join("")).toBe(expectedText);
    // What piled up while the client was not reading came joined.
    expect(frames.length).toBeLessThan(published);
  });

  it("unsubscribes from the bus and stops reading when the client goes away", async () => {
    const { harness, url } = await started();
    const client = connect(url);
    await eventually(() => expect(harness.bus.listenerCount("s")).toBe(1));
    client.destroy();
    await eventually(() => expect(harness.bus.listenerCount("s")).toBe(0));
    const takes = harness.takes;
    harness.bus.publish("s", notice("after"));
    await new Promise((resolve) => setTimeout(resolve, 30));
    expect(harness.takes).toBe(takes);
  });

  it("pings while nothing else is sent", async () => {
    const { url } = await started({ pingIntervalMs: 30 });
    const client = connect(url);
    await eventually(() => expect(client.frames().filter((frame) => frame.event === "ping").length).toBeGreaterThanOrEqual(2));
    expect(client.frames()[1]).toEqual({ event: "ping", data: "" });
  });

  it("ends the stream with a serialized-error frame when reading fails, and lets go of the bus", async () => {
    const { harness, url } = await started();
    const client = connect(url);
    await eventually(() => expect(harness.bus.listenerCount("s")).toBe(1));
    harness.failTake = new Error("the transcript could not be read");
    harness.bus.publish("s", notice("a"));
    await eventually(() => expect(client.ended()).toBe(true));
    expect(client.frames().at(-1)).toEqual({ event: "serialized-error", data: '{"message":"the transcript could not be read"}' });
    expect(harness.bus.listenerCount("s")).toBe(0);
  });
});
