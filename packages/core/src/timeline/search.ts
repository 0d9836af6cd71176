/**
 * A timeline search: a case-insensitive literal match of the query (as typed, regex characters
 * escaped) against each event's search text. Null for a blank query, which matches everything.
 */
export function timelineQueryMatcher(query: string): ((searchText: string) => boolean) | null {
  const trimmed = query.trim();
  if (trimmed === "") return null;
  const pattern = new RegExp(trimmed.replace(/[.*+?^${}()|[\]\\]/g, "\\$&"), "i");
  return (searchText) => pattern.test(searchText);
}

/** The indices of the events whose search text matches `query`, in order. */
export function searchTimelineEvents(events: ReadonlyArray<{ searchText: string }>, query: string): number[] {
  const matches = timelineQueryMatcher(query);
  const found: number[] = [];
  for (let index = 0; index < events.length; index++) if (!matches || matches(events[index]!.searchText)) found.push(index);
  return found;
}
