/**
 * The selected event, kept as its position and its id together: a timeline that grows (pages of a large
 * session, a live session's new events) or is rebuilt keeps the selection on the same event, whatever
 * order the updates land in.
 */
export type Selection = { index: number; id: string };

/** Where the selected event is in `events`: at its position when it is still there, else found by id; null when gone. */
export function selectedIndexIn(events: readonly { id: string }[], selection: Selection | null): number | null {
  if (selection === null) return null;
  if (events[selection.index]?.id === selection.id) return selection.index;
  const found = events.findIndex((event) => event.id === selection.id);
  return found === -1 ? null : found;
}
