import { setImmediate as nextTurn } from "node:timers/promises";
import { searchTextOf, TimelineSearchIndex, type TimelineEvent } from "@cairn/core/timeline";

/** Events indexed between two turns of the event loop: a few milliseconds of work, so other requests go on. */
const SLICE_EVENTS = 2_000;

/**
 * The search index of `events`, made a slice at a time (a million events take seconds; the server keeps
 * answering meanwhile). Rejects when `wanted` says no between two slices.
 */
export async function buildSearchIndex(events: readonly TimelineEvent[], wanted: () => boolean, sliceEvents = SLICE_EVENTS): Promise<TimelineSearchIndex> {
  const index = new TimelineSearchIndex();
  for (let from = 0; from < events.length; from += sliceEvents) {
    if (from > 0) await nextTurn();
    if (!wanted()) throw new Error("the search index is no longer wanted");
    const to = Math.min(events.length, from + sliceEvents);
    for (let position = from; position < to; position++) index.add(searchTextOf(events[position]!));
  }
  return index;
}
