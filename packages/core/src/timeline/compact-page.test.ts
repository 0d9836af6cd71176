import { describe, expect, it } from "vitest";
import { buildTimeline } from "./build-timeline.ts";
import { compactHead, compactTimeline } from "./compact.ts";
import { compactPage, runningEndOffsets, type CompactTimelinePage } from "./compact-page.ts";
import { appendPagesToTable, timelineTableOf } from "./event-columns.ts";
import { syntheticTimelineSource } from "./synthetic-source.ts";
import { rowsOfTable } from "./test-rows.ts";

const viaJson = <T>(value: T): T => JSON.parse(JSON.stringify(value)) as T;

describe("a compact timeline sent in pages", () => {
  const compact = compactTimeline(buildTimeline(syntheticTimelineSource({ events: 3_000, sidechains: 2 })), "v1");
  const whole = rowsOfTable(timelineTableOf(compact));

  it("adds up, after the first part, to the whole timeline: events, lane items, totals and axis", () => {
    let table = timelineTableOf(viaJson(compactHead(compact, 500, "head")));
    for (let from = 500; from < compact.columns.count; from += 700) table = appendPagesToTable(table, [viaJson(compactPage(compact, from, from + 700))]);
    expect(rowsOfTable(table)).toEqual(whole);
  });

  it("adds several pages at once the same as one by one, and leaves what was held unchanged", () => {
    const head = timelineTableOf(viaJson(compactHead(compact, 500, "head")));
    const heldRows = rowsOfTable(head);
    const pages: CompactTimelinePage[] = [];
    for (let from = 500; from < compact.columns.count; from += 900) pages.push(viaJson(compactPage(compact, from, from + 900)));
    const atOnce = appendPagesToTable(head, pages.slice(0, 2));
    expect(rowsOfTable(atOnce)).toEqual(rowsOfTable(appendPagesToTable(appendPagesToTable(head, [pages[0]!]), [pages[1]!])));
    const rest = appendPagesToTable(atOnce, pages.slice(2));
    expect(rowsOfTable(rest)).toEqual(whole);
    expect(rowsOfTable(head)).toEqual(heldRows);
    expect(appendPagesToTable(head, []).events).toBe(head.events);
    expect(rowsOfTable(appendPagesToTable(head, []))).toEqual(heldRows);
    expect(() => appendPagesToTable(head, [pages[0]!, pages[2]!])).toThrow(/starts at event 2300, but 1400 events are held/);
  });

  it("cuts each page's totals where the events before it end, so none is sent twice or left out", () => {
    const pages: CompactTimelinePage[] = [];
    for (let from = 0; from < compact.columns.count; from += 1_000) pages.push(compactPage(compact, from, from + 1_000));
    expect(pages.map((page) => page.totals.t.length).reduce((sum, length) => sum + length, 0)).toBe(compact.totals.t.length);
    const count = compact.columns.count;
    expect(pages.at(-1)).toMatchObject({ to: count, total: count, endMs: compact.endMs, version: "v1" });
    expect(pages[1]).toMatchObject({ from: 1_000, to: 2_000 });
    expect(pages[1]!.columns.count).toBe(1_000);
  });

  it("cuts the same pages with the timeline's running ends made once as without them", () => {
    const ends = runningEndOffsets(compact);
    expect(ends).toHaveLength(compact.columns.count);
    for (const [from, to] of [
      [0, 700],
      [700, 1_900],
      [2_500, compact.columns.count],
      [0, compact.columns.count],
    ] as const) {
      expect(compactPage(compact, from, to, ends)).toEqual(compactPage(compact, from, to));
    }
    // Every lane's items among the page's events, none from outside it.
    const page = compactPage(compact, 1_000, 2_000, ends);
    compact.lanes.forEach((lane, position) => {
      expect(page.laneItems[position]).toEqual(lane.items.filter((index) => index >= 1_000 && index < 2_000));
    });
  });

  it("clamps a page past the end to nothing, and refuses a page that does not continue what is held", () => {
    expect(compactPage(compact, 9_000, 9_500).columns.count).toBe(0);
    const head = timelineTableOf(compactHead(compact, 500, "head"));
    expect(() => appendPagesToTable(head, [compactPage(compact, 600, 700)])).toThrow(/starts at event 600, but 500 events are held/);
  });
});
