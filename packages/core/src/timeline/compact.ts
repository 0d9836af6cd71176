import { timelineEventKinds, timelineStatuses, type Timeline, type TimelineEvent } from "./types.ts";

/** Summaries longer than this are cut in the compact form: the list shows one line, the details show all. */
export const COMPACT_SUMMARY_CHARS = 240;

/**
 * What a viewer draws of one event: everything but its details and its search text, which stay on the
 * server (fetched on demand, searched there).
 */
export type TimelineRow = Omit<TimelineEvent, "detail" | "searchText" | "lineUuid"> & {
  /** A tool call's permission wait (drawn inside its bar); absent when the row still has its detail. */
  wait?: { start: number; end: number } | null;
};

/** A timeline whose events are rows: the shape the viewer works with, whichever way it was built. */
export type TimelineRows = Omit<Timeline, "events"> & { events: TimelineRow[] };

/**
 * A timeline for the wire: the lanes, totals and summary as they are, and the events as columns (one
 * array per field, kinds, statuses, lanes, agents and tool names as small integers into tables, times
 * as offsets from `startMs`), so 100,000 events cost a few MB of JSON instead of tens.
 */
export type CompactTimeline = Omit<Timeline, "events"> & {
  /** Changes whenever the transcript does: a viewer asks "anything newer than this?". */
  version: string;
  columns: {
    count: number;
    id: string[];
    kind: number[];
    lane: number[];
    row: number[];
    /** Offsets from `startMs`; null when unknown. */
    start: Array<number | null>;
    end: Array<number | null>;
    at: number[];
    timingKnown: number[];
    title: string[];
    summary: string[];
    status: number[];
    /** Index into `agents`, or -1. */
    agent: number[];
    /** Index into `tools`, or -1. */
    tool: number[];
    /** A tool call's permission wait, offsets from `startMs`: [start, end], or null. */
    wait: Array<[number, number] | null>;
    agents: string[];
    tools: string[];
  };
};

export function compactTimeline(timeline: Timeline, version: string): CompactTimeline {
  const { events, ...rest } = timeline;
  const laneIndex = new Map(timeline.lanes.map((lane, index) => [lane.id, index]));
  const kindIndex = new Map<string, number>(timelineEventKinds.map((kind, index) => [kind, index]));
  const statusIndex = new Map<string, number>(timelineStatuses.map((status, index) => [status, index]));
  const agents = new Interner();
  const tools = new Interner();
  const base = timeline.startMs;
  const count = events.length;
  const columns: CompactTimeline["columns"] = {
    count,
    id: new Array(count),
    kind: new Array(count),
    lane: new Array(count),
    row: new Array(count),
    start: new Array(count),
    end: new Array(count),
    at: new Array(count),
    timingKnown: new Array(count),
    title: new Array(count),
    summary: new Array(count),
    status: new Array(count),
    agent: new Array(count),
    tool: new Array(count),
    wait: new Array(count),
    agents: agents.values,
    tools: tools.values,
  };
  for (let index = 0; index < count; index++) {
    const event = events[index]!;
    columns.id[index] = event.id;
    columns.kind[index] = kindIndex.get(event.kind)!;
    columns.lane[index] = laneIndex.get(event.lane) ?? -1;
    columns.row[index] = event.row;
    columns.start[index] = event.start === null ? null : event.start - base;
    columns.end[index] = event.end === null ? null : event.end - base;
    columns.at[index] = event.at - base;
    columns.timingKnown[index] = event.timingKnown ? 1 : 0;
    columns.title[index] = event.title;
    columns.summary[index] = event.summary.length > COMPACT_SUMMARY_CHARS ? `${event.summary.slice(0, COMPACT_SUMMARY_CHARS - 1)}…` : event.summary;
    columns.status[index] = statusIndex.get(event.status)!;
    columns.agent[index] = event.agentId === null ? -1 : agents.index(event.agentId);
    columns.tool[index] = event.toolName === null ? -1 : tools.index(event.toolName);
    const wait = permissionWait(event);
    columns.wait[index] = wait === null ? null : [wait.start - base, wait.end - base];
  }
  return { ...rest, version, columns };
}

/**
 * The first `maxEvents` events of a compact timeline (they are ordered by time), with the lanes' items and the
 * running totals cut to them: what a viewer can show at once while the whole, far larger, follows.
 */
export function compactHead(compact: CompactTimeline, maxEvents: number, version: string): CompactTimeline {
  const { columns } = compact;
  if (columns.count <= maxEvents) return { ...compact, version };
  const count = Math.max(0, maxEvents);
  let endOffset = 0;
  for (let index = 0; index < count; index++) endOffset = Math.max(endOffset, columns.end[index] ?? columns.at[index]!);
  const endMs = compact.startMs + endOffset;
  const inTotals = compact.totals.t.findIndex((t) => t > endMs);
  const totalsCount = inTotals === -1 ? compact.totals.t.length : inTotals;
  const cutTotals = <T>(values: T[]) => values.slice(0, totalsCount);
  return {
    ...compact,
    version,
    endMs: count === 0 ? compact.startMs : endMs,
    lanes: compact.lanes.map((lane) => ({ ...lane, items: lane.items.filter((index) => index < count) })),
    totals: {
      t: cutTotals(compact.totals.t),
      inputTokens: cutTotals(compact.totals.inputTokens),
      outputTokens: cutTotals(compact.totals.outputTokens),
      cacheReadTokens: cutTotals(compact.totals.cacheReadTokens),
      cacheWriteTokens: cutTotals(compact.totals.cacheWriteTokens),
      costUsd: cutTotals(compact.totals.costUsd),
    },
    columns: {
      ...columns,
      count,
      id: columns.id.slice(0, count),
      kind: columns.kind.slice(0, count),
      lane: columns.lane.slice(0, count),
      row: columns.row.slice(0, count),
      start: columns.start.slice(0, count),
      end: columns.end.slice(0, count),
      at: columns.at.slice(0, count),
      timingKnown: columns.timingKnown.slice(0, count),
      title: columns.title.slice(0, count),
      summary: columns.summary.slice(0, count),
      status: columns.status.slice(0, count),
      agent: columns.agent.slice(0, count),
      tool: columns.tool.slice(0, count),
      wait: columns.wait.slice(0, count),
    },
  };
}

/** A tool call's permission wait, when one was recorded and took time. */
export function permissionWait(event: TimelineRow & { detail?: TimelineEvent["detail"] }): { start: number; end: number } | null {
  if (event.wait !== undefined) return event.wait;
  const detail = event.detail;
  if (detail?.kind !== "tool" || detail.waitStart === null || detail.waitEnd === null || detail.waitEnd <= detail.waitStart) return null;
  return { start: detail.waitStart, end: detail.waitEnd };
}

/** Each distinct value once, by the index it was first given. */
export class Interner {
  readonly values: string[] = [];
  private readonly indexes = new Map<string, number>();

  index(value: string): number {
    let index = this.indexes.get(value);
    if (index === undefined) {
      index = this.values.length;
      this.values.push(value);
      this.indexes.set(value, index);
    }
    return index;
  }
}
