import { timelineQueryMatcher, type TimelineEventColumns, type TimelineEventKind, type TimelineStatus } from "@cairn/core/timeline";

export type TimelineFilters = {
  /** Kinds shown; every kind when empty. */
  kinds: ReadonlySet<TimelineEventKind>;
  /** A tool name, or null for every tool (and every non-tool event). */
  tool: string | null;
  status: TimelineStatus | "problems" | null;
  query: string;
};

export const noFilters: TimelineFilters = { kinds: new Set(), tool: null, status: null, query: "" };

export function isFiltered(filters: TimelineFilters): boolean {
  return filters.kinds.size > 0 || filters.tool !== null || filters.status !== null || filters.query.trim() !== "";
}

/**
 * The indices (into `events`, in time order) of the events the filters let through. One pass; the
 * text search is done last so the cheap filters narrow it first: against `searchHits` (the answer for
 * the query of the view's search: the server's, or the built timeline's search texts), else locally on each
 * event's kind, title and summary. Works on the columns: no event is made a row.
 */
export function filterEvents(events: TimelineEventColumns, filters: TimelineFilters, searchHits: Uint8Array | null = null): number[] {
  const matcher = searchHits ? null : timelineQueryMatcher(filters.query);
  const matches: number[] = [];
  for (let index = 0; index < events.length; index++) {
    if (filters.kinds.size > 0 && !filters.kinds.has(events.kind(index))) continue;
    if (filters.tool !== null && events.toolName(index) !== filters.tool) continue;
    const status = events.status(index);
    if (filters.status === "problems") {
      if (status === "ok") continue;
    } else if (filters.status !== null && status !== filters.status) continue;
    if (searchHits && searchHits[index] !== 1) continue;
    if (matcher && !matcher(`${events.kind(index)} ${events.title(index)} ${events.summary(index)}`)) continue;
    matches.push(index);
  }
  return matches;
}

/** For each event index, its position in `matches` (or -1): the list's row of an event chosen on the axis. */
export function positionsOf(matches: readonly number[], eventCount: number): Int32Array {
  const positions = new Int32Array(eventCount).fill(-1);
  matches.forEach((index, position) => {
    positions[index] = position;
  });
  return positions;
}
