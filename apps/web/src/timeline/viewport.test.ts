import { buildTimeline, syntheticTimelineSource, timelineTableOfRows, type TimelineSource } from "@cairn/core/timeline";
import { describe, expect, it } from "vitest";
import { fitViewport, laneBars, panViewport, revealTime, timeTicks, zoomViewport } from "./viewport";

const T0 = Date.parse("2026-11-29T10:00:00.000Z");

function parallelSource(): TimelineSource {
  const call = (id: string, name: string, start: number, end: number) => ({
    type: "user",
    uuid: `r-${id}`,
    sessionId: "s",
    timestamp: new Date(T0 + end).toISOString(),
    message: { role: "user", content: [{ type: "tool_result", tool_use_id: id, content: "ok" }] },
    toolCall: { toolUseId: id, name, startedAt: T0 + start, endedAt: T0 + end, durationMs: end - start, permissionWaitMs: 0, isError: false, batch: 1 },
  });
  const assistant = {
    type: "assistant",
    uuid: "a",
    sessionId: "s",
    timestamp: new Date(T0 + 100).toISOString(),
    message: {
      id: "m",
      role: "assistant",
      model: "m",
      content: [
        { type: "tool_use", id: "t1", name: "Read", input: {} },
        { type: "tool_use", id: "t2", name: "Grep", input: {} },
      ],
    },
    modelCall: { model: "m", startedAt: T0, firstTokenAt: null, endedAt: T0 + 100, attempts: 1 },
  };
  return {
    sessionId: "s",
    title: null,
    cwd: null,
    imported: false,
    lines: [assistant, call("t1", "Read", 110, 600), call("t2", "Grep", 111, 400)] as never,
    sidechains: [],
  };
}

describe("viewport", () => {
  it("zooms around the anchor and pans by a share of the width", () => {
    const zoomed = zoomViewport({ t0: 0, t1: 1000 }, 0.5, 0.25);
    expect(zoomed).toEqual({ t0: 125, t1: 625 });
    expect(panViewport({ t0: 0, t1: 1000 }, 0.1)).toEqual({ t0: 100, t1: 1100 });
    expect(revealTime({ t0: 0, t1: 100 }, 500, 520)).toEqual({ t0: 460, t1: 560 });
    expect(revealTime({ t0: 0, t1: 100 }, 10, 20)).toEqual({ t0: 0, t1: 100 });
  });

  it("draws parallel calls as overlapping bars on different rows", () => {
    const timeline = buildTimeline(parallelSource());
    const tools = timeline.lanes.find((lane) => lane.id === "tools")!;
    const bars = laneBars(tools, timelineTableOfRows(timeline).events, fitViewport(timeline), 1000, (row) => row);
    expect(bars).toHaveLength(2);
    const [read, grep] = bars as [(typeof bars)[number], (typeof bars)[number]];
    expect(read.row).not.toBe(grep.row);
    expect(read.x0 < grep.x1 && grep.x0 < read.x1).toBe(true);
  });

  it("keeps what is drawn small however large the session: neighbours merge, the window is searched", () => {
    const timeline = buildTimeline(syntheticTimelineSource({ events: 20_000 }));
    const tools = timeline.lanes.find((lane) => lane.id === "tools")!;
    const { events } = timelineTableOfRows(timeline);
    const all = laneBars(tools, events, fitViewport(timeline), 1200, (row) => Math.min(7, row));
    expect(all.length).toBeLessThan(3_000);
    expect(all.reduce((sum, bar) => sum + bar.count, 0)).toBe(tools.items.length);
    const middle = (timeline.startMs + timeline.endMs) / 2;
    const window = { t0: middle, t1: middle + 5_000 };
    const some = laneBars(tools, events, window, 1200, (row) => row);
    expect(some.length).toBeGreaterThan(0);
    for (const bar of some) {
      const event = timeline.events[bar.index]!;
      expect(event.end! >= window.t0 && event.at <= window.t1).toBe(true);
    }
  });

  it("puts ticks on round times", () => {
    const ticks = timeTicks({ t0: 0, t1: 10_000 }, 1000);
    expect(ticks[1]! - ticks[0]!).toBe(1000);
    // Round since the session's start, not since 1970.
    expect(timeTicks({ t0: 1_000_003, t1: 1_010_003 }, 1000, 1_000_003)[0]).toBe(1_000_003);
  });
});
