// A timeline worker thread: a TimelineService (reading, building, caching, paging and searching timelines)
// answering the requests of the TimelineWorkerClient that started it.
import { parentPort, workerData } from "node:worker_threads";
import { z } from "zod";
import { TimelineService } from "./timeline-service.ts";
import { serveTimelineRequests } from "./timeline-worker-protocol.ts";

const where = z.object({ cairnHome: z.string(), workspaceRoot: z.string(), version: z.string() }).parse(workerData);
if (!parentPort) throw new Error("the timeline worker runs in a worker thread");
serveTimelineRequests(parentPort, new TimelineService(where));
