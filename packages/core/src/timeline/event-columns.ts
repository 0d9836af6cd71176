import { Interner, permissionWait, type CompactTimeline, type TimelineRow, type TimelineRows } from "./compact.ts";
import { type CompactTimelinePage, withPagesSeries } from "./compact-page.ts";
import { TextColumn } from "./text-column.ts";
import { timelineEventKinds, timelineStatuses, type TimelineEventKind, type TimelineStatus } from "./types.ts";

type Columns = CompactTimeline["columns"];

/**
 * The events of a timeline as columns, in the browser: numbers in typed arrays, kinds, statuses, lanes, agents and
 * tool names as small integers into tables, ids, titles and summaries as text columns (a few long strings). A row
 * object is made only for an event that is drawn or opened (`get`), so a million events are a few dozen objects the
 * garbage collector marks in one step each, not a million rows, three million boxed times and three million strings
 * it walks one by one (a major GC's marking of them took the main thread's second core while the list scrolled).
 *
 * A value is a view of the first `length` events of a store that only grows: `append` writes after them (into the
 * same arrays while they have room) and returns a longer view, so a view held elsewhere (the timeline drawn before
 * a page came) keeps seeing exactly its events.
 */
export class TimelineEventColumns {
  readonly length: number;
  private readonly store: ColumnStore;
  /** The rows made lately, by index: the same event drawn twice is the same object (a memoized row stays). */
  private readonly made = new Map<number, TimelineRow>();

  private constructor(store: ColumnStore, length: number) {
    this.store = store;
    this.length = length;
  }

  /** No events, with the lane ids the events' lane numbers point into. */
  static empty(laneIds: readonly string[]): TimelineEventColumns {
    return new TimelineEventColumns(new ColumnStore(laneIds, 0), 0);
  }

  /** The columns of a compact timeline (or page): times there are offsets from `startMs`. */
  static fromCompact(columns: Columns, startMs: number, laneIds: readonly string[]): TimelineEventColumns {
    return TimelineEventColumns.empty(laneIds).append(columns, startMs);
  }

  /** Columns of rows made elsewhere (a timeline built in the browser, a test). */
  static fromRows(rows: readonly TimelineRow[], laneIds: readonly string[]): TimelineEventColumns {
    const store = new ColumnStore(laneIds, rows.length);
    const laneIndex = new Map(laneIds.map((id, index) => [id, index]));
    for (const row of rows) {
      store.push(
        row.id,
        kindIndex.get(row.kind) ?? 0,
        laneIndex.get(row.lane) ?? -1,
        row.row,
        row.start,
        row.end,
        row.at,
        row.timingKnown,
        row.title,
        row.summary,
        statusIndex.get(row.status) ?? 0,
        row.agentId === null ? -1 : store.agents.index(row.agentId),
        row.toolName === null ? -1 : store.tools.index(row.toolName),
        permissionWait(row),
      );
    }
    store.seal();
    return new TimelineEventColumns(store, rows.length);
  }

  /** These events and the compact `columns` after them (times offsets from `startMs`). */
  append(columns: Columns, startMs: number): TimelineEventColumns {
    const store = this.growable(columns.count);
    store.reserve(columns.count);
    const agents = columns.agents.map((agent) => store.agents.index(agent));
    const tools = columns.tools.map((tool) => store.tools.index(tool));
    for (let index = 0; index < columns.count; index++) {
      const start = columns.start[index];
      const end = columns.end[index];
      const agent = columns.agent[index]!;
      const tool = columns.tool[index]!;
      const wait = columns.wait[index];
      store.push(
        columns.id[index]!,
        columns.kind[index]!,
        columns.lane[index]!,
        columns.row[index]!,
        start === null || start === undefined ? null : start + startMs,
        end === null || end === undefined ? null : end + startMs,
        columns.at[index]! + startMs,
        columns.timingKnown[index] === 1,
        columns.title[index]!,
        columns.summary[index]!,
        columns.status[index]!,
        agent < 0 ? -1 : (agents[agent] ?? -1),
        tool < 0 ? -1 : (tools[tool] ?? -1),
        wait ? { start: wait[0] + startMs, end: wait[1] + startMs } : null,
      );
    }
    store.seal();
    return new TimelineEventColumns(store, this.length + columns.count);
  }

  /** Event `index` as a row (made now, or the one made lately), or undefined past the end. */
  get(index: number): TimelineRow | undefined {
    if (!(index >= 0 && index < this.length)) return undefined;
    let row = this.made.get(index);
    if (row === undefined) {
      if (this.made.size >= MADE_ROWS_KEPT) this.made.clear();
      row = this.store.row(index);
      this.made.set(index, row);
    }
    return row;
  }

  id(index: number): string {
    return this.store.ids.get(index);
  }
  kind(index: number): TimelineEventKind {
    return timelineEventKinds[this.store.kinds[index]!]!;
  }
  status(index: number): TimelineStatus {
    return timelineStatuses[this.store.statuses[index]!]!;
  }
  toolName(index: number): string | null {
    const tool = this.store.toolOf[index]!;
    return tool < 0 ? null : this.store.tools.values[tool]!;
  }
  agentId(index: number): string | null {
    const agent = this.store.agentOf[index]!;
    return agent < 0 ? null : this.store.agents.values[agent]!;
  }
  title(index: number): string {
    return this.store.titles.get(index);
  }
  summary(index: number): string {
    return this.store.summaries.get(index);
  }
  /** The sub-row of its lane the event is drawn in. */
  row(index: number): number {
    return this.store.rows[index]!;
  }
  at(index: number): number {
    return this.store.at[index]!;
  }
  start(index: number): number | null {
    const start = this.store.start[index]!;
    return Number.isNaN(start) ? null : start;
  }
  end(index: number): number | null {
    const end = this.store.end[index]!;
    return Number.isNaN(end) ? null : end;
  }
  /** A tool call's permission wait, or null. */
  wait(index: number): { start: number; end: number } | null {
    const start = this.store.waitStart[index]!;
    return Number.isNaN(start) ? null : { start, end: this.store.waitEnd[index]! };
  }

  /** The index of the first event with this id, or -1. */
  indexOfId(id: string): number {
    return this.store.ids.indexOf(id, this.length);
  }

  /** Every event as a row (for tests and small timelines: a million rows is what this class avoids). */
  toRows(): TimelineRow[] {
    const rows: TimelineRow[] = new Array(this.length);
    for (let index = 0; index < this.length; index++) rows[index] = this.store.row(index);
    return rows;
  }

  /** The store to append to: this one when these are its last events (it grows as it is written), else a copy. */
  private growable(more: number): ColumnStore {
    const store = this.store;
    if (store.length === this.length) return store;
    const copy = new ColumnStore(store.laneIds, this.length + more);
    copy.copyFrom(store, this.length);
    return copy;
  }
}

/** A viewer's timeline: the lanes, totals and summary as they are, the events as columns. */
export type TimelineTable = Omit<TimelineRows, "events"> & { events: TimelineEventColumns };

/** A compact timeline as the viewer holds it. */
export function timelineTableOf<T extends CompactTimeline>(compact: T): Omit<T, "columns"> & { events: TimelineEventColumns } {
  const { columns, ...rest } = compact;
  return {
    ...rest,
    events: TimelineEventColumns.fromCompact(
      columns,
      compact.startMs,
      compact.lanes.map((lane) => lane.id),
    ),
  };
}

/** A timeline of rows (built in the browser) as the viewer holds it. */
export function timelineTableOfRows(timeline: TimelineRows): TimelineTable {
  const { events, ...rest } = timeline;
  return {
    ...rest,
    events: TimelineEventColumns.fromRows(
      events,
      timeline.lanes.map((lane) => lane.id),
    ),
  };
}

/**
 * `table` (the events before the first page, as the first part and the earlier pages gave them) with consecutive
 * pages' events, lane items and totals added. Refuses a page that does not continue it. The events already held
 * are not copied while their arrays have room (they double when full).
 */
export function appendPagesToTable<T extends TimelineTable>(table: T, pages: readonly CompactTimelinePage[]): T {
  let events = table.events;
  for (const page of pages) {
    if (page.from !== events.length) throw new Error(`the page starts at event ${page.from}, but ${events.length} events are held`);
    events = events.append(page.columns, table.startMs);
  }
  return { ...table, ...withPagesSeries(table, pages), events };
}

/** Rows kept made at once per view: a screenful of the list and the axis's marks, many times over. */
const MADE_ROWS_KEPT = 2_048;

const kindIndex = new Map<string, number>(timelineEventKinds.map((kind, index) => [kind, index]));
const statusIndex = new Map<string, number>(timelineStatuses.map((status, index) => [status, index]));

/** The arrays behind the views; `length` events are written, there is room for `capacity`. */
class ColumnStore {
  length = 0;
  capacity: number;
  readonly laneIds: readonly string[];
  readonly agents = new Interner();
  readonly tools = new Interner();
  readonly ids = new TextColumn();
  readonly titles = new TextColumn();
  readonly summaries = new TextColumn();
  kinds: Uint8Array;
  statuses: Uint8Array;
  timingKnown: Uint8Array;
  lanes: Int32Array;
  rows: Int32Array;
  agentOf: Int32Array;
  toolOf: Int32Array;
  /** Epoch ms; NaN for none (start, end, a wait). */
  at: Float64Array;
  start: Float64Array;
  end: Float64Array;
  waitStart: Float64Array;
  waitEnd: Float64Array;

  constructor(laneIds: readonly string[], capacity: number) {
    this.laneIds = laneIds;
    this.capacity = Math.max(16, capacity);
    const size = this.capacity;
    this.kinds = new Uint8Array(size);
    this.statuses = new Uint8Array(size);
    this.timingKnown = new Uint8Array(size);
    this.lanes = new Int32Array(size);
    this.rows = new Int32Array(size);
    this.agentOf = new Int32Array(size);
    this.toolOf = new Int32Array(size);
    this.at = new Float64Array(size);
    this.start = new Float64Array(size);
    this.end = new Float64Array(size);
    this.waitStart = new Float64Array(size);
    this.waitEnd = new Float64Array(size);
  }

  /** The first `count` events of `other` (this store is empty and has room). */
  copyFrom(other: ColumnStore, count: number): void {
    for (const value of other.agents.values) this.agents.index(value);
    for (const value of other.tools.values) this.tools.index(value);
    this.ids.copyFrom(other.ids, count);
    this.titles.copyFrom(other.titles, count);
    this.summaries.copyFrom(other.summaries, count);
    this.kinds.set(other.kinds.subarray(0, count));
    this.statuses.set(other.statuses.subarray(0, count));
    this.timingKnown.set(other.timingKnown.subarray(0, count));
    this.lanes.set(other.lanes.subarray(0, count));
    this.rows.set(other.rows.subarray(0, count));
    this.agentOf.set(other.agentOf.subarray(0, count));
    this.toolOf.set(other.toolOf.subarray(0, count));
    this.at.set(other.at.subarray(0, count));
    this.start.set(other.start.subarray(0, count));
    this.end.set(other.end.subarray(0, count));
    this.waitStart.set(other.waitStart.subarray(0, count));
    this.waitEnd.set(other.waitEnd.subarray(0, count));
    this.length = count;
  }

  push(
    id: string,
    kind: number,
    lane: number,
    row: number,
    start: number | null,
    end: number | null,
    at: number,
    timingKnown: boolean,
    title: string,
    summary: string,
    status: number,
    agent: number,
    tool: number,
    wait: { start: number; end: number } | null,
  ): void {
    if (this.length === this.capacity) this.grow(this.capacity * 2);
    const index = this.length++;
    this.ids.push(id);
    this.titles.push(title);
    this.summaries.push(summary);
    this.kinds[index] = kind;
    this.statuses[index] = status;
    this.timingKnown[index] = timingKnown ? 1 : 0;
    this.lanes[index] = lane;
    this.rows[index] = row;
    this.agentOf[index] = agent;
    this.toolOf[index] = tool;
    this.at[index] = at;
    this.start[index] = start ?? Number.NaN;
    this.end[index] = end ?? Number.NaN;
    this.waitStart[index] = wait ? wait.start : Number.NaN;
    this.waitEnd[index] = wait ? wait.end : Number.NaN;
  }

  row(index: number): TimelineRow {
    const start = this.start[index]!;
    const end = this.end[index]!;
    const agent = this.agentOf[index]!;
    const tool = this.toolOf[index]!;
    const waitStart = this.waitStart[index]!;
    return {
      index,
      id: this.ids.get(index),
      kind: timelineEventKinds[this.kinds[index]!]!,
      lane: this.laneIds[this.lanes[index]!] ?? "",
      row: this.rows[index]!,
      start: Number.isNaN(start) ? null : start,
      end: Number.isNaN(end) ? null : end,
      at: this.at[index]!,
      timingKnown: this.timingKnown[index] === 1,
      title: this.titles.get(index),
      summary: this.summaries.get(index),
      status: timelineStatuses[this.statuses[index]!]!,
      agentId: agent < 0 ? null : this.agents.values[agent]!,
      toolName: tool < 0 ? null : this.tools.values[tool]!,
      wait: Number.isNaN(waitStart) ? null : { start: waitStart, end: this.waitEnd[index]! },
    };
  }

  /** Room for `more` events after those written: the arrays double, or grow to just that when it is more. */
  reserve(more: number): void {
    if (this.length + more > this.capacity) this.grow(Math.max(this.capacity * 2, this.length + more));
    this.ids.reserve(more);
    this.titles.reserve(more);
    this.summaries.reserve(more);
  }

  /** Joins the text written since the last call into chunks (each value was its own string until then). */
  seal(): void {
    this.ids.seal();
    this.titles.seal();
    this.summaries.seal();
  }

  /** Widens the typed arrays to `size` (the text columns grow by themselves). */
  private grow(size: number): void {
    const widen = <A extends Uint8Array | Int32Array | Float64Array>(array: A, make: (size: number) => A): A => {
      const wider = make(size);
      wider.set(array);
      return wider;
    };
    this.kinds = widen(this.kinds, (n) => new Uint8Array(n));
    this.statuses = widen(this.statuses, (n) => new Uint8Array(n));
    this.timingKnown = widen(this.timingKnown, (n) => new Uint8Array(n));
    this.lanes = widen(this.lanes, (n) => new Int32Array(n));
    this.rows = widen(this.rows, (n) => new Int32Array(n));
    this.agentOf = widen(this.agentOf, (n) => new Int32Array(n));
    this.toolOf = widen(this.toolOf, (n) => new Int32Array(n));
    this.at = widen(this.at, (n) => new Float64Array(n));
    this.start = widen(this.start, (n) => new Float64Array(n));
    this.end = widen(this.end, (n) => new Float64Array(n));
    this.waitStart = widen(this.waitStart, (n) => new Float64Array(n));
    this.waitEnd = widen(this.waitEnd, (n) => new Float64Array(n));
    this.capacity = size;
  }
}
