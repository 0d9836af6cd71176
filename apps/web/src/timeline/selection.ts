/**
 * The selected event, kept as its position and its id together: a timeline that grows (pages of a large
 * session, a live session's new events) or is rebuilt keeps the selection on the same event, whatever
 * order the updates land in.
 */
export type Selection = { index: number; id: string };

/** The events' ids (a `TimelineEventColumns`). */
export type EventIds = { readonly length: number; id(index: number): string; indexOfId(id: string): number };

/** Where the selected event is in `events`: at its position when it is still there, else found by id; null when gone. */
export function selectedIndexIn(events: EventIds, selection: Selection | null): number | null {
  if (selection === null) return null;
  if (selection.index >= 0 && selection.index < events.length && events.id(selection.index) === selection.id) return selection.index;
  const found = events.indexOfId(selection.id);
  return found === -1 ? null : found;
}
