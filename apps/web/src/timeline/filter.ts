import { timelineQueryMatcher, type TimelineEventKind, type TimelineRow, type TimelineStatus } from "@cairn/core/timeline";

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
 * text search is done last so the cheap filters narrow it first: locally, on each event's search text
 * when the events carry it, or against `searchHits`, the server's answer for the query.
 */
export function filterEvents(
  events: ReadonlyArray<TimelineRow & { searchText?: string }>,
  filters: TimelineFilters,
  searchHits: Uint8Array | null = null,
): number[] {
  const matcher = searchHits ? null : timelineQueryMatcher(filters.query);
  const matches: number[] = [];
  for (const event of events) {
    if (filters.kinds.size > 0 && !filters.kinds.has(event.kind)) continue;
    if (filters.tool !== null && event.toolName !== filters.tool) continue;
    if (filters.status === "problems") {
      if (event.status === "ok") continue;
    } else if (filters.status !== null && event.status !== filters.status) continue;
    if (searchHits && searchHits[event.index] !== 1) continue;
    if (matcher && !matcher(event.searchText ?? `${event.kind} ${event.title} ${event.summary}`)) continue;
    matches.push(event.index);
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
