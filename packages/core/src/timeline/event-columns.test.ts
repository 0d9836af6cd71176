import { describe, expect, it } from "vitest";
import { buildTimeline } from "./build-timeline.ts";
import { compactTimeline, expandCompactTimeline } from "./compact.ts";
import { appendCompactPages, compactPage, runningEndOffsets } from "./compact-page.ts";
import { appendPagesToTable, TimelineEventColumns, timelineTableOf, timelineTableOfRows } from "./event-columns.ts";
import { syntheticTimelineSource } from "./synthetic-source.ts";

describe("TimelineEventColumns", () => {
  const timeline = buildTimeline(syntheticTimelineSource({ events: 600, sidechains: 2 }));
  const compact = compactTimeline(timeline, "v1");
  const expanded = expandCompactTimeline(compact);

  it("gives back every row of a compact timeline as expanding it does", () => {
    const table = timelineTableOf(compact);
    expect(table.events.length).toBe(expanded.events.length);
    expect(table.events.toRows()).toEqual(expanded.events);
    expect(table.lanes).toEqual(expanded.lanes);
    expect(table.version).toBe("v1");
  });

  it("answers each field from its columns without making the row", () => {
    const { events } = timelineTableOf(compact);
    const waited = expanded.events.findIndex((row) => row.wait);
    const untimed = expanded.events.findIndex((row) => row.start === null);
    expect(waited).toBeGreaterThanOrEqual(0);
    for (const index of [0, 1, waited, untimed, expanded.events.length - 1].filter((index) => index >= 0)) {
      const row = expanded.events[index]!;
      expect([events.id(index), events.kind(index), events.status(index), events.toolName(index), events.agentId(index)]).toEqual([
        row.id,
        row.kind,
        row.status,
        row.toolName,
        row.agentId,
      ]);
      expect([events.title(index), events.summary(index), events.row(index), events.at(index), events.start(index), events.end(index)]).toEqual([
        row.title,
        row.summary,
        row.row,
        row.at,
        row.start,
        row.end,
      ]);
      expect(events.wait(index)).toEqual(row.wait);
    }
    expect(events.get(events.length)).toBeUndefined();
    expect(events.get(-1)).toBeUndefined();
    expect(events.indexOfId(expanded.events[42]!.id)).toBe(42);
    expect(events.indexOfId("nope")).toBe(-1);
  });

  it("hands out the same row object for an event asked for again", () => {
    const { events } = timelineTableOf(compact);
    expect(events.get(5)).toBe(events.get(5));
  });

  it("makes the same columns from rows built in the browser (waits read from the details)", () => {
    const fromRows = timelineTableOfRows(timeline);
    expect(fromRows.events.toRows()).toEqual(expanded.events);
  });

  it("grows page by page to what the pages add to rows, and an earlier view keeps its events", () => {
    const ends = runningEndOffsets(compact);
    const first = timelineTableOf({
      ...compact,
      columns: compactPage(compact, 0, 100, ends).columns,
      lanes: compact.lanes.map((lane) => ({ ...lane, items: lane.items.filter((index) => index < 100) })),
    });
    let rows = expandCompactTimeline({ ...compact, columns: compactPage(compact, 0, 100, ends).columns, lanes: first.lanes });
    let table = first;
    const views = [first];
    for (let from = 100; from < compact.columns.count; from += 130) {
      const pages = [compactPage(compact, from, from + 65, ends), compactPage(compact, from + 65, from + 130, ends)].filter((page) => page.to > page.from);
      table = appendPagesToTable(table, pages);
      rows = { ...appendCompactPages(rows, pages), version: rows.version };
      views.push(table);
    }
    expect(table.events.length).toBe(compact.columns.count);
    expect(table.events.toRows()).toEqual(rows.events);
    expect(table.lanes).toEqual(rows.lanes);
    expect(table.totals).toEqual(rows.totals);
    expect(table.endMs).toBe(rows.endMs);
    // The first view still has its 100 events, unchanged, though the arrays behind it grew.
    expect(first.events.length).toBe(100);
    expect(first.events.toRows()).toEqual(expanded.events.slice(0, 100));
    expect(() => appendPagesToTable(first, [compactPage(compact, 300, 400, ends)])).toThrow(/starts at event 300/);
  });

  it("copies, not overwrites, when a shorter view is extended again", () => {
    const ends = runningEndOffsets(compact);
    const short = TimelineEventColumns.fromCompact(
      compactPage(compact, 0, 50, ends).columns,
      compact.startMs,
      compact.lanes.map((lane) => lane.id),
    );
    const long = short.append(compactPage(compact, 50, 100, ends).columns, compact.startMs);
    const other = short.append(compactPage(compact, 50, 60, ends).columns, compact.startMs + 1);
    expect(long.toRows()).toEqual(expanded.events.slice(0, 100));
    expect(other.at(55)).toBe(expanded.events[55]!.at + 1);
    expect(long.at(55)).toBe(expanded.events[55]!.at);
  });
});
