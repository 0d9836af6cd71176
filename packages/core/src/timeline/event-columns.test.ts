import { describe, expect, it } from "vitest";
import { buildTimeline } from "./build-timeline.ts";
import { compactHead, compactTimeline } from "./compact.ts";
import { compactPage, runningEndOffsets } from "./compact-page.ts";
import { appendPagesToTable, TimelineEventColumns, timelineTableOf, timelineTableOfRows } from "./event-columns.ts";
import { syntheticTimelineSource } from "./synthetic-source.ts";
import { rowOf } from "./test-rows.ts";

describe("TimelineEventColumns", () => {
  const timeline = buildTimeline(syntheticTimelineSource({ events: 600, sidechains: 2 }));
  const compact = compactTimeline(timeline, "v1");
  // The rows a viewer shows of the built events (the synthetic summaries are short: the compact form cuts none).
  const expected = timeline.events.map(rowOf);

  it("gives back every row of a compact timeline as it was built", () => {
    const table = timelineTableOf(compact);
    expect(table.events.length).toBe(expected.length);
    expect(table.events.toRows()).toEqual(expected);
    expect(table.lanes).toEqual(timeline.lanes);
    expect(table.version).toBe("v1");
  });

  it("answers each field from its columns without making the row", () => {
    const { events } = timelineTableOf(compact);
    const waited = expected.findIndex((row) => row.wait);
    const untimed = expected.findIndex((row) => row.start === null);
    expect(waited).toBeGreaterThanOrEqual(0);
    for (const index of [0, 1, waited, untimed, expected.length - 1].filter((index) => index >= 0)) {
      const row = expected[index]!;
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
    expect(events.indexOfId(expected[42]!.id)).toBe(42);
    expect(events.indexOfId("nope")).toBe(-1);
  });

  it("hands out the same row object for an event asked for again", () => {
    const { events } = timelineTableOf(compact);
    expect(events.get(5)).toBe(events.get(5));
  });

  it("makes the same columns from rows built in the browser (waits read from the details)", () => {
    const fromRows = timelineTableOfRows(timeline);
    expect(fromRows.events.toRows()).toEqual(expected);
  });

  it("grows page by page to the whole timeline, and an earlier view keeps its events", () => {
    const ends = runningEndOffsets(compact);
    const first = timelineTableOf(compactHead(compact, 100, "head"));
    let table = first;
    const views = [first];
    for (let from = 100; from < compact.columns.count; from += 130) {
      const pages = [compactPage(compact, from, from + 65, ends), compactPage(compact, from + 65, from + 130, ends)].filter((page) => page.to > page.from);
      table = appendPagesToTable(table, pages);
      views.push(table);
    }
    expect(table.events.length).toBe(compact.columns.count);
    expect(table.events.toRows()).toEqual(expected);
    expect(table.lanes).toEqual(compact.lanes);
    expect(table.totals).toEqual(compact.totals);
    expect(table.endMs).toBe(compact.endMs);
    // The first view still has its 100 events, unchanged, though the arrays behind it grew; so has every later view.
    expect(first.events.length).toBe(100);
    expect(first.events.toRows()).toEqual(expected.slice(0, 100));
    for (const view of views) expect(view.events.toRows()).toEqual(expected.slice(0, view.events.length));
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
    expect(long.toRows()).toEqual(expected.slice(0, 100));
    expect(other.at(55)).toBe(expected[55]!.at + 1);
    expect(long.at(55)).toBe(expected[55]!.at);
  });
});
