import type { CompactTimeline, TimelineRows } from "./compact.ts";
import type { TotalsSeries } from "./types.ts";

type Columns = CompactTimeline["columns"];

/**
 * Events `[from, to)` of a compact timeline, for a viewer that already holds the events before `from` (the
 * first part, then the pages before this one): their columns, each lane's items among them, and the running
 * totals that fall after the events before `from` and up to the last of these (on the last page: all the rest).
 * Parsing and adding one page is a small step, so a page that receives a large timeline stays responsive.
 */
export type CompactTimelinePage = {
  /** The version of the whole timeline the page was cut from. */
  version: string;
  from: number;
  to: number;
  /** How many events the whole timeline has. */
  total: number;
  /** The end of the time axis once this page is added. */
  endMs: number;
  columns: Columns;
  /** Per lane (in the order of `lanes`), the indices of its items among these events. */
  laneItems: number[][];
  totals: TotalsSeries;
};

/**
 * The page of events `[from, to)` (clamped to the timeline) of `compact`. `ends` (`runningEndOffsets` of the same
 * timeline, made once for all its pages) keeps each page's cost to its own events: without it a page walks every
 * event before it, and the pages of a million events add up to minutes.
 */
export function compactPage(compact: CompactTimeline, from: number, to: number, ends?: Float64Array): CompactTimelinePage {
  const { columns } = compact;
  const start = Math.max(0, Math.min(from, columns.count));
  const end = Math.max(start, Math.min(to, columns.count));
  const last = end === columns.count;
  const endOffset = (count: number) => (ends ? (count === 0 ? 0 : ends[count - 1]!) : endOffsetOf(columns, count));
  const totalsFrom = totalsUpTo(compact, start, endOffset);
  const totalsTo = last ? compact.totals.t.length : Math.max(totalsFrom, totalsUpTo(compact, end, endOffset));
  const slice = <T>(values: T[]) => values.slice(start, end);
  const totalsSlice = (values: number[]) => values.slice(totalsFrom, totalsTo);
  return {
    version: compact.version,
    from: start,
    to: end,
    total: columns.count,
    endMs: last ? compact.endMs : compact.startMs + endOffset(end),
    columns: {
      count: end - start,
      id: slice(columns.id),
      kind: slice(columns.kind),
      lane: slice(columns.lane),
      row: slice(columns.row),
      start: slice(columns.start),
      end: slice(columns.end),
      at: slice(columns.at),
      timingKnown: slice(columns.timingKnown),
      title: slice(columns.title),
      summary: slice(columns.summary),
      status: slice(columns.status),
      agent: slice(columns.agent),
      tool: slice(columns.tool),
      wait: slice(columns.wait),
      agents: columns.agents,
      tools: columns.tools,
    },
    laneItems: compact.lanes.map((lane) => itemsBetween(lane.items, start, end)),
    totals: {
      t: totalsSlice(compact.totals.t),
      inputTokens: totalsSlice(compact.totals.inputTokens),
      outputTokens: totalsSlice(compact.totals.outputTokens),
      cacheReadTokens: totalsSlice(compact.totals.cacheReadTokens),
      cacheWriteTokens: totalsSlice(compact.totals.cacheWriteTokens),
      costUsd: totalsSlice(compact.totals.costUsd),
    },
  };
}

/** `before` with `more` after it; `before` itself when there is nothing more (no copy). */
function joinArrays<T>(before: T[], more: T[][]): T[] {
  return more.every((part) => part.length === 0) ? before : before.concat(...more);
}

/**
 * What consecutive pages add to a timeline besides its events: the later end, each lane's items, the running totals
 * (`appendPagesToTable` adds the events).
 */
export function withPagesSeries(
  timeline: Pick<TimelineRows, "endMs" | "lanes" | "totals">,
  pages: readonly CompactTimelinePage[],
): Pick<TimelineRows, "endMs" | "lanes" | "totals"> {
  const totals = (pick: (series: TotalsSeries) => number[]) =>
    joinArrays(
      pick(timeline.totals),
      pages.map((page) => pick(page.totals)),
    );
  return {
    endMs: pages.reduce((endMs, page) => Math.max(endMs, page.endMs), timeline.endMs),
    lanes: timeline.lanes.map((lane, index) => ({
      ...lane,
      items: joinArrays(
        lane.items,
        pages.map((page) => page.laneItems[index] ?? []),
      ),
    })),
    totals: {
      t: totals((series) => series.t),
      inputTokens: totals((series) => series.inputTokens),
      outputTokens: totals((series) => series.outputTokens),
      cacheReadTokens: totals((series) => series.cacheReadTokens),
      cacheWriteTokens: totals((series) => series.cacheWriteTokens),
      costUsd: totals((series) => series.costUsd),
    },
  };
}

/** For each event, the latest end (or point) among the events up to it, as an offset from `startMs`. */
export function runningEndOffsets(compact: CompactTimeline): Float64Array {
  const { columns } = compact;
  const ends = new Float64Array(columns.count);
  let offset = 0;
  for (let index = 0; index < columns.count; index++) {
    offset = Math.max(offset, columns.end[index] ?? columns.at[index]!);
    ends[index] = offset;
  }
  return ends;
}

/** The latest end (or point) among the first `count` events, as an offset from `startMs`. */
function endOffsetOf(columns: Columns, count: number): number {
  let offset = 0;
  for (let index = 0; index < count; index++) offset = Math.max(offset, columns.end[index] ?? columns.at[index]!);
  return offset;
}

/** How many running-total points fall within the first `count` events (the same cut `compactHead` makes). */
function totalsUpTo(compact: CompactTimeline, count: number, endOffset: (count: number) => number): number {
  if (count >= compact.columns.count) return compact.totals.t.length;
  const endMs = compact.startMs + endOffset(count);
  const beyond = compact.totals.t.findIndex((t) => t > endMs);
  return beyond === -1 ? compact.totals.t.length : beyond;
}

/**
 * A lane's items among events `[start, end)`. The build places events in index order, so each lane's items
 * ascend: two binary searches find them.
 */
function itemsBetween(items: readonly number[], start: number, end: number): number[] {
  const first = lowerBound(items, start);
  return items.slice(first, lowerBound(items, end, first));
}

function lowerBound(items: readonly number[], value: number, low = 0): number {
  let high = items.length;
  while (low < high) {
    const middle = (low + high) >>> 1;
    if (items[middle]! < value) low = middle + 1;
    else high = middle;
  }
  return low;
}
