import { permissionWait, type TimelineRow, type TimelineRows } from "./compact.ts";
import type { TimelineTable } from "./event-columns.ts";
import type { TimelineEvent } from "./types.ts";

/**
 * What a viewer shows of a built event: its row fields and its permission wait (its summary uncut). Field by field:
 * a built event is a record whose summary is a getter, which a spread would not copy.
 */
export function rowOf(event: TimelineEvent): TimelineRow {
  const { index, id, kind, lane, row, start, end, at, timingKnown, title, summary, status, agentId, toolName } = event;
  return { index, id, kind, lane, row, start, end, at, timingKnown, title, summary, status, agentId, toolName, wait: permissionWait(event) };
}

/** A viewer's table with its events made into rows and without its version: what two ways of filling one are compared by. */
export function rowsOfTable(table: TimelineTable): TimelineRows {
  const { version: _version, ...rest } = table as TimelineTable & { version?: string };
  return { ...rest, events: rest.events.toRows() };
}
