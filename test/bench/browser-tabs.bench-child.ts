// The latency benchmarks' browser tabs, in a process of their own: a browser parses its streams in its own process,
// and a reader sharing the benchmark's event loop stamped deltas late whenever the benchmark itself was busy (100
// `session.send` calls through fetch held that loop for up to 80 ms). Driven over IPC by `BrowserTabs`.
import { readSessionEvents, type SessionEventsReader } from "./sse-reader.ts";

export type TabStream = { server: { url: string; token: string }; sessionId: string };
export type TabsRequest = { kind: "open"; streams: TabStream[] } | { kind: "status" } | { kind: "take" };
export type TabsReply =
  | { kind: "opened" }
  | { kind: "failed"; message: string }
  | { kind: "status"; received: number; ended: number; lastIds: number }
  | { kind: "taken"; entries: Array<[string, number]> };

let readers: SessionEventsReader[] = [];
let received = new Map<string, number>();
const send = (reply: TabsReply) => process.send!(reply);

process.on("message", (request: TabsRequest) => {
  if (request.kind === "open") {
    readers = request.streams.map(({ server, sessionId }) => readSessionEvents(server, sessionId, received));
    Promise.all(readers.map((reader) => reader.connected)).then(
      () => send({ kind: "opened" }),
      (error: Error) => send({ kind: "failed", message: error.message }),
    );
  } else if (request.kind === "status") {
    send({
      kind: "status",
      received: received.size,
      ended: readers.filter((reader) => reader.ended()).length,
      lastIds: readers.reduce((sum, reader) => sum + reader.lastId(), 0),
    });
  } else {
    for (const reader of readers) reader.close();
    readers = [];
    send({ kind: "taken", entries: [...received] });
    received = new Map();
  }
});
// The benchmark going away (its IPC channel closing) ends this process.
process.on("disconnect", () => process.exit(0));
