import { existsSync } from "node:fs";
import { dirname, join } from "node:path";
import { pathToFileURL } from "node:url";
import { Worker } from "node:worker_threads";
import type { TimelineSource } from "@cairn/core/timeline";
import { type ImportTarget, importTranscriptText } from "./import-transcript.ts";
import { answerRows } from "./rows-over-thread.ts";
import { loadTimelineSource } from "./source.ts";
import { type LineStore, storeTimelineSource } from "./store-timeline-cache.ts";
import type { ImportedTranscript, TimelinePageAnswer, TimelinePort, TimelineViewAnswer } from "./timeline-port.ts";
import { errorOf, isThreadReady, type TimelineWorkerRequest, type TimelineWorkerResponse } from "./timeline-worker-protocol.ts";

/** Where the transcripts are; an import is written through `transcripts` when given (`ImportTarget`). */
type Where = ImportTarget;
type Pending = { resolve: (value: unknown) => void; reject: (error: Error) => void };
/** A request without its id (the client numbers them). */
type Call = TimelineWorkerRequest extends infer Request ? (Request extends TimelineWorkerRequest ? Omit<Request, "id"> : never) : never;

/**
 * The timeline port with its reading, building, paging and searching in a worker thread (`TimelineService`
 * there, with its cache): a large transcript takes seconds of CPU to read and build, and the node keeps serving
 * every other request (the IDE's own scripts among them) meanwhile. The thread starts at `start()` or the first call,
 * does not keep the process alive, and a new one starts at the next call if it dies (whatever it was answering fails).
 * `source` and `importTranscript` stay on this thread: they read or write once and build nothing. Transcripts kept as
 * rows (PostgreSQL) are read here, where the database client is, and built there: the thread asks for the rows.
 */
export class TimelineWorkerClient implements TimelinePort {
  private readonly where: Where;
  private readonly entry: URL;
  private worker: Worker | undefined;
  /** Settles when the current thread has loaded its code (`TIMELINE_THREAD_READY`), or has failed first. */
  private ready: Promise<void> = Promise.resolve();
  private readonly pending = new Map<number, Pending>();
  private nextId = 1;

  private readonly rows: LineStore | undefined;

  /** `rows`: transcripts kept as rows (distributed mode); the thread asks this one for them and builds from them. */
  constructor(where: Where, options: { entry?: URL; rows?: LineStore } = {}) {
    this.where = where;
    this.entry = options.entry ?? timelineWorkerEntry();
    this.rows = options.rows;
  }

  source(sessionId: string, signal?: AbortSignal): Promise<TimelineSource> {
    const options = signal ? { signal } : {};
    return this.rows ? storeTimelineSource(this.rows, this.where.workspaceRoot, sessionId, options) : loadTimelineSource(this.where, sessionId, options);
  }

  importTranscript(jsonl: string, name: string | undefined, signal?: AbortSignal): Promise<ImportedTranscript> {
    return importTranscriptText(this.where, jsonl, { ...(name ? { name } : {}), ...(signal ? { signal } : {}) });
  }

  view(sessionId: string, knownVersion: string | undefined, signal?: AbortSignal): Promise<TimelineViewAnswer> {
    return this.call({ method: "view", sessionId, ...(knownVersion === undefined ? {} : { knownVersion }) }, signal) as Promise<TimelineViewAnswer>;
  }

  page(sessionId: string, version: string, from: number, signal?: AbortSignal): Promise<TimelinePageAnswer> {
    return this.call({ method: "page", sessionId, version, from }, signal) as Promise<TimelinePageAnswer>;
  }

  detail(sessionId: string, eventId: string, signal?: AbortSignal): ReturnType<TimelinePort["detail"]> {
    return this.call({ method: "detail", sessionId, eventId }, signal) as ReturnType<TimelinePort["detail"]>;
  }

  search(sessionId: string, query: string, signal?: AbortSignal): ReturnType<TimelinePort["search"]> {
    return this.call({ method: "search", sessionId, query }, signal) as ReturnType<TimelinePort["search"]>;
  }

  /**
   * Starts the thread now, if none runs, so its start, the loading of its code and the first run of what a first
   * look at a timeline runs (timeline-warm-up.ts) are not part of the first timeline's wait. Idle, it does not keep
   * the process alive. Resolves once the thread is ready (at once when one already runs); rejects if it fails first.
   */
  start(): Promise<void> {
    if (this.worker) return this.ready;
    this.thread({ warmUp: true });
    return this.ready;
  }

  /** Ends the thread (its caches go with it); calls waiting for it fail. A later call starts a new one. */
  async close(): Promise<void> {
    const worker = this.worker;
    this.worker = undefined;
    if (worker) await worker.terminate();
  }

  /**
   * Sends one request. A caller that goes away (its signal aborts) stops waiting; the work in the thread goes on,
   * as a build shared with other viewers would.
   */
  private call(request: Call, signal: AbortSignal | undefined): Promise<unknown> {
    if (signal?.aborted) return Promise.reject(signal.reason);
    const worker = this.thread();
    const id = this.nextId++;
    return new Promise<unknown>((resolve, reject) => {
      const onAbort = () => {
        this.pending.delete(id);
        this.idleIfDone(worker);
        reject(signal?.reason);
      };
      signal?.addEventListener("abort", onAbort, { once: true });
      const done = () => signal?.removeEventListener("abort", onAbort);
      this.pending.set(id, {
        resolve: (value) => {
          done();
          resolve(value);
        },
        reject: (error) => {
          done();
          reject(error);
        },
      });
      // Held open while it owes an answer, never while idle.
      worker.ref();
      worker.postMessage({ ...request, id });
    });
  }

  private idleIfDone(worker: Worker): void {
    if (this.pending.size === 0) worker.unref();
  }

  /** The running thread, or a new one; `warmUp` when started ahead of any call (a call waiting would wait for it too). */
  private thread(options: { warmUp?: boolean } = {}): Worker {
    if (this.worker) return this.worker;
    const worker = new Worker(this.entry, {
      workerData: {
        cairnHome: this.where.cairnHome,
        workspaceRoot: this.where.workspaceRoot,
        version: this.where.version,
        rows: this.rows !== undefined,
        warmUp: options.warmUp === true,
      },
    });
    let settle: (error?: Error) => void = () => undefined;
    this.ready = new Promise<void>((resolve, reject) => {
      settle = (error) => (error ? reject(error) : resolve());
    });
    // Nobody need wait for it: a failure also reaches the calls under way.
    this.ready.catch(() => undefined);
    // An idle timeline thread never holds the process open.
    worker.unref();
    const rows = this.rows;
    worker.on("message", (message: TimelineWorkerResponse) => {
      if (isThreadReady(message)) return settle();
      if (rows && answerRows(message, rows, (reply) => worker.postMessage(reply))) return;
      const waiting = this.pending.get(message.id);
      if (!waiting) return;
      this.pending.delete(message.id);
      this.idleIfDone(worker);
      if (message.ok) waiting.resolve(message.value);
      else waiting.reject(errorOf(message.error));
    });
    const fail = (error: Error) => {
      settle(error);
      if (this.worker === worker) this.worker = undefined;
      const waiting = [...this.pending.values()];
      this.pending.clear();
      for (const { reject } of waiting) reject(error);
    };
    worker.on("error", (error) => fail(new Error(`The timeline worker failed: ${error.message}`, { cause: error })));
    worker.on("exit", (code) => fail(new Error(`The timeline worker stopped (exit code ${code})`)));
    this.worker = worker;
    return worker;
  }
}

/**
 * Where the worker thread's code is: beside the CLI bundle when this runs from it (`timeline-worker.cjs`, built
 * with it), else the TypeScript sources through tsx (tests, CAIRN_DEV=1).
 */
function timelineWorkerEntry(): URL {
  const bundle = typeof __filename === "string" && __filename.endsWith(".cjs") ? join(dirname(__filename), "timeline-worker.cjs") : undefined;
  if (bundle && existsSync(bundle)) return pathToFileURL(bundle);
  return new URL("../../bin/timeline-worker.js", import.meta.url);
}
