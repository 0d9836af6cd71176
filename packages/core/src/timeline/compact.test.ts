import { describe, expect, it } from "vitest";
import { buildTimeline } from "./build-timeline.ts";
import { compactHead, compactTimeline, COMPACT_SUMMARY_CHARS, permissionWait } from "./compact.ts";
import { timelineTableOf } from "./event-columns.ts";
import { syntheticTimelineSource } from "./synthetic-source.ts";
import { rowOf } from "./test-rows.ts";

describe("the compact timeline", () => {
  const timeline = buildTimeline(syntheticTimelineSource({ events: 2_000, sidechains: 2 }));

  it("round-trips every row field through JSON into the viewer's columns, without details or search text", () => {
    const compact = JSON.parse(JSON.stringify(compactTimeline(timeline, "v1"))) as ReturnType<typeof compactTimeline>;
    const table = timelineTableOf(compact);
    expect(table.version).toBe("v1");
    expect(table.lanes).toEqual(timeline.lanes);
    expect(table.summary).toEqual(timeline.summary);
    expect(table.events).toHaveLength(timeline.events.length);
    table.events.toRows().forEach((row, index) => {
      const event = timeline.events[index]!;
      expect(row).toEqual({ ...rowOf(event), summary: row.summary });
      expect(event.summary.startsWith(row.summary.replace(/…$/, ""))).toBe(true);
      expect(row.summary.length).toBeLessThanOrEqual(COMPACT_SUMMARY_CHARS);
      expect("detail" in row).toBe(false);
    });
  });

  it("keeps the permission waits the axis draws", () => {
    expect(timeline.events.some((event) => permissionWait(event) !== null)).toBe(true);
  });

  it("is a fraction of the full timeline's size", () => {
    expect(JSON.stringify(compactTimeline(timeline, "v")).length).toBeLessThan(JSON.stringify(timeline).length / 4);
  });
});

describe("compactHead", () => {
  const timeline = buildTimeline(syntheticTimelineSource({ events: 2_000, sidechains: 2 }));

  it("cuts a head: the first events, lane items and running totals up to them", () => {
    const compact = compactTimeline(timeline, "v1");
    const head = timelineTableOf(compactHead(compact, 300, "head-v1"));
    const rows = timelineTableOf(compact);
    expect(head.version).toBe("head-v1");
    const headRows = head.events.toRows();
    expect(headRows).toEqual(rows.events.toRows().slice(0, 300));
    for (const lane of head.lanes) expect(lane.items.every((index) => index < 300)).toBe(true);
    expect(head.lanes.reduce((sum, lane) => sum + lane.items.length, 0)).toBeGreaterThanOrEqual(300);
    const lastEnd = Math.max(...headRows.map((event) => event.end ?? event.at));
    expect(head.endMs).toBe(lastEnd);
    expect(head.totals.t.length).toBeGreaterThan(0);
    expect(head.totals.t.every((t) => t <= lastEnd)).toBe(true);
    expect(head.totals.t.length).toBeLessThan(rows.totals.t.length);
    expect(compactHead(compact, compact.columns.count + 1, "same").columns.count).toBe(compact.columns.count);
  });
});
