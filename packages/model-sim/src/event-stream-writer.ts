import type { ServerResponse } from "node:http";
import { apiErrorBody } from "./api-error.ts";
import type { Fault } from "./scenario.ts";
import { formatSseEvent, type SseEvent } from "./sse-events.ts";

export type StreamFault = Extract<Fault, { kind: "stream-error" | "disconnect" | "stall" }>;

export type StreamOutcome = "completed" | "faulted" | "aborted";

export type WriteStreamOptions = {
  /** Pause between events; 0 writes everything in large batches. */
  chunkDelayMs: number;
  fault: StreamFault | undefined;
  /** Aborted when the client goes away or the simulator closes. */
  signal: AbortSignal;
  /** Called with each chunk right after it is handed to the response (see `ModelSimOptions.onStreamWrite`). */
  onWrite?: ((chunk: string) => void) | undefined;
};

// With no delay the events are concatenated and written in batches of this size, which keeps a
// 20,000-delta answer to a few dozen socket writes instead of one write (or timer) per event.
const BATCH_CHARS = 64 * 1024;

export async function writeEventStream(response: ServerResponse, events: Iterable<SseEvent>, options: WriteStreamOptions): Promise<StreamOutcome> {
  const { chunkDelayMs, fault, signal, onWrite } = options;
  let pending = "";
  let written = 0;
  let faultApplied = false;

  const flush = async (): Promise<void> => {
    const chunk = pending;
    pending = "";
    // Writing to a response whose client has gone would raise ERR_STREAM_DESTROYED.
    if (chunk.length === 0 || signal.aborted || response.destroyed) return;
    const flowing = response.write(chunk);
    onWrite?.(chunk);
    if (!flowing) await drained(response, signal);
  };

  // Returns true when the fault ended the response.
  const applyFault = async (active: StreamFault): Promise<boolean> => {
    faultApplied = true;
    switch (active.kind) {
      case "stall":
        await flush();
        await sleep(active.ms, signal);
        return false;
      case "stream-error": {
        if (signal.aborted) return true;
        const body = apiErrorBody(active.errorType ?? "overloaded_error", active.message);
        pending += formatSseEvent({ event: "error", data: body });
        await flush();
        if (!response.destroyed) response.end();
        return true;
      }
      case "disconnect":
        if (!signal.aborted) await writeThrough(response, pending);
        pending = "";
        response.destroy();
        return true;
    }
  };

  response.writeHead(200, {
    "content-type": "text/event-stream; charset=utf-8",
    "cache-control": "no-cache",
    connection: "keep-alive",
  });
  response.flushHeaders();
  for (const event of events) {
    if (signal.aborted) return "aborted";
    if (fault && !faultApplied && written === fault.afterEvents && (await applyFault(fault))) return "faulted";
    if (chunkDelayMs > 0 && written > 0) {
      await flush();
      await sleep(chunkDelayMs, signal);
      if (signal.aborted) return "aborted";
    }
    pending += formatSseEvent(event);
    written += 1;
    if (chunkDelayMs > 0 || pending.length >= BATCH_CHARS) await flush();
  }
  if (signal.aborted) return "aborted";
  // A fault scripted after the last event still happens, just before the response ends.
  if (fault && !faultApplied && (await applyFault(fault))) return "faulted";
  await flush();
  if (signal.aborted || response.destroyed) return "aborted";
  response.end();
  return "completed";
}

/** Resolves once `chunk` has been handed to the socket, so a disconnect right after still delivers it. */
function writeThrough(response: ServerResponse, chunk: string): Promise<void> {
  if (chunk.length === 0) return Promise.resolve();
  return new Promise((resolve) => {
    const done = (): void => {
      response.off("close", done);
      resolve();
    };
    response.once("close", done);
    response.write(chunk, done);
  });
}

function drained(response: ServerResponse, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const done = (): void => {
      response.off("drain", done);
      response.off("close", done);
      signal.removeEventListener("abort", done);
      resolve();
    };
    response.once("drain", done);
    response.once("close", done);
    signal.addEventListener("abort", done, { once: true });
  });
}

/** Resolves after `ms`, or as soon as `signal` aborts; never rejects. */
export function sleep(ms: number, signal: AbortSignal): Promise<void> {
  if (signal.aborted || ms <= 0) return Promise.resolve();
  return new Promise((resolve) => {
    const onAbort = (): void => {
      clearTimeout(timer);
      resolve();
    };
    const timer = setTimeout(() => {
      signal.removeEventListener("abort", onAbort);
      resolve();
    }, ms);
    signal.addEventListener("abort", onAbort, { once: true });
  });
}
