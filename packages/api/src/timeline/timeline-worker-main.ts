// A timeline worker thread: a TimelineService (reading, building, caching, paging and searching timelines)
// answering the requests of the TimelineWorkerClient that started it, from files or from rows it asks that thread for.
import { parentPort, workerData } from "node:worker_threads";
import { z } from "zod";
import { rowsOverThread } from "./rows-over-thread.ts";
import { TimelineService } from "./timeline-service.ts";
import { warmUpTimelinePaths } from "./timeline-warm-up.ts";
import { serveTimelineRequests, TIMELINE_THREAD_READY } from "./timeline-worker-protocol.ts";

const { rows, warmUp, ...where } = z
  .object({ cairnHome: z.string(), workspaceRoot: z.string(), version: z.string(), rows: z.boolean(), warmUp: z.boolean().optional() })
  .parse(workerData);
if (!parentPort) throw new Error("the timeline worker runs in a worker thread");
// Transcripts kept as rows (PostgreSQL): read by the thread that holds the database client, built here.
serveTimelineRequests(parentPort, new TimelineService(where, rows ? { rows: rowsOverThread(parentPort) } : {}));
// Started ahead of the first request (TimelineWorkerClient.start): the first look's code paths run once, before it comes.
if (warmUp) warmUpTimelinePaths();
parentPort.postMessage(TIMELINE_THREAD_READY);
