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
