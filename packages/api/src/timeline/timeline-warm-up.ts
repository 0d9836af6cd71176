import { addTranscriptLine, type TranscriptLinesReport } from "@cairn/core/node";
import type { TranscriptLine } from "@cairn/core/schema";
import { compactHead, syntheticTimelineSource } from "@cairn/core/timeline";
import { assembleTimelineSource } from "./source.ts";
import { cachedTimelineOf } from "./timeline-cache.ts";

/** Events in the made-up session: every kind of line and block once or more, a few milliseconds of work. */
const WARM_UP_EVENTS = 120;

/**
 * Runs a small made-up session (core's synthetic source, built in memory: no file, no cache entry) through what a
 * first look at a timeline runs: each line's text parsed and checked against the transcript schemas, the timeline
 * built, made compact, cut to its head and serialized. A timeline thread started ahead of time (`TimelineWorkerClient.start`)
 * does this once, so the first timeline a viewer opens does not pay for the first use of that code: zod compiles
 * each schema's parser when it first parses, and V8 compiles the rest as it first runs. Says how many lines were not
 * taken (none: the synthetic lines fit the schemas) and how many events were built.
 */
export function warmUpTimelinePaths(): { malformedLines: number; events: number } {
  const source = syntheticTimelineSource({ events: WARM_UP_EVENTS, sidechains: 1 });
  const report: TranscriptLinesReport = { lines: 0, malformedLines: 0, tornTail: false, unknownLines: 0 };
  const parse = (lines: readonly TranscriptLine[]) => {
    const parsed: TranscriptLine[] = [];
    for (const line of lines) addTranscriptLine(JSON.stringify(line), source.sessionId, parsed, report);
    return parsed;
  };
  const assembled = assembleTimelineSource({
    sessionId: source.sessionId,
    workspaceRoot: source.cwd ?? "/",
    mainLines: parse(source.lines),
    sidechainFiles: source.sidechains.map((sidechain) => ({ agentId: sidechain.agentId, lines: parse(sidechain.lines) })),
    reports: [report],
  });
  const cached = cachedTimelineOf(assembled, "warm-up", true);
  JSON.stringify(compactHead(cached.compact, Math.ceil(WARM_UP_EVENTS / 2), "warm-up-head"));
  JSON.stringify(cached.timeline.events.slice(0, 30).map((event) => event.detail));
  return { malformedLines: report.malformedLines + report.unknownLines, events: cached.timeline.events.length };
}
