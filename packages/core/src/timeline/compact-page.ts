import { type CompactTimeline, expandCompactTimeline, type TimelineRows } from "./compact.ts";
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

/** The page of events `[from, to)` (clamped to the timeline) of `compact`. */
export function compactPage(compact: CompactTimeline, from: number, to: number): CompactTimelinePage {
  const { columns } = compact;
  const start = Math.max(0, Math.min(from, columns.count));
  const end = Math.max(start, Math.min(to, columns.count));
  const last = end === columns.count;
  const totalsFrom = totalsUpTo(compact, start);
  const totalsTo = last ? compact.totals.t.length : Math.max(totalsFrom, totalsUpTo(compact, end));
  const slice = <T>(values: T[]) => values.slice(start, end);
  const totalsSlice = (values: number[]) => values.slice(totalsFrom, totalsTo);
  return {
    version: compact.version,
    from: start,
    to: end,
    total: columns.count,
    endMs: last ? compact.endMs : compact.startMs + endOffset(columns, end),
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
    laneItems: compact.lanes.map((lane) => lane.items.filter((index) => index >= start && index < end)),
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

/**
 * `rows` (the events before `page.from`, as the first part and the earlier pages gave them) with the page's
 * events, lane items and totals added. Refuses a page that does not continue `rows`.
 */
export function appendCompactPage(rows: TimelineRows, page: CompactTimelinePage): TimelineRows {
  if (page.from !== rows.events.length) throw new Error(`the page starts at event ${page.from}, but ${rows.events.length} events are held`);
  const lanes = rows.lanes.map((lane) => ({ ...lane, items: [] as number[] }));
  const added = expandCompactTimeline({ ...rows, version: page.version, lanes, columns: page.columns });
  const events = rows.events.concat(added.events.map((event) => ({ ...event, index: event.index + page.from })));
  const join = (held: number[], more: number[]) => (more.length === 0 ? held : held.concat(more));
  return {
    ...rows,
    endMs: Math.max(rows.endMs, page.endMs),
    events,
    lanes: rows.lanes.map((lane, index) => ({ ...lane, items: join(lane.items, page.laneItems[index] ?? []) })),
    totals: {
      t: join(rows.totals.t, page.totals.t),
      inputTokens: join(rows.totals.inputTokens, page.totals.inputTokens),
      outputTokens: join(rows.totals.outputTokens, page.totals.outputTokens),
      cacheReadTokens: join(rows.totals.cacheReadTokens, page.totals.cacheReadTokens),
      cacheWriteTokens: join(rows.totals.cacheWriteTokens, page.totals.cacheWriteTokens),
      costUsd: join(rows.totals.costUsd, page.totals.costUsd),
    },
  };
}

/** The latest end (or point) among the first `count` events, as an offset from `startMs`. */
function endOffset(columns: Columns, count: number): number {
  let offset = 0;
  for (let index = 0; index < count; index++) offset = Math.max(offset, columns.end[index] ?? columns.at[index]!);
  return offset;
}

/** How many running-total points fall within the first `count` events (the same cut `compactHead` makes). */
function totalsUpTo(compact: CompactTimeline, count: number): number {
  if (count >= compact.columns.count) return compact.totals.t.length;
  const endMs = compact.startMs + endOffset(compact.columns, count);
  const beyond = compact.totals.t.findIndex((t) => t > endMs);
  return beyond === -1 ? compact.totals.t.length : beyond;
}
