import { TimelineEventColumns, type TimelineRow } from "@cairn/core/timeline";
import { describe, expect, it } from "vitest";
import { BAR_ROW_HEIGHT, barColour, DIM_OPACITY, drawMarks, markAt, selectedMarkBox, type MarksContext } from "./bar-canvas";
import type { Bar } from "./viewport";

function event(index: number, kind: TimelineRow["kind"], status: TimelineRow["status"] = "ok"): TimelineRow {
  return {
    index,
    id: `e${index}`,
    kind,
    lane: kind,
    row: 0,
    start: 0,
    end: 10,
    at: 0,
    timingKnown: true,
    title: `event ${index}`,
    summary: "",
    status,
    agentId: null,
    toolName: null,
  };
}
const bar = (index: number, x0: number, x1: number, row = 0, extra: Partial<Bar> = {}): Bar => ({
  index,
  count: 1,
  x0,
  x1,
  row,
  point: false,
  wait: null,
  ...extra,
});

/** A context that records what is drawn: each fill with its colour and opacity at the time. */
function recorder() {
  const fills: Array<{ box: number[]; fill: string; alpha: number }> = [];
  const points: Array<[number, number]> = [];
  const context = {
    fillStyle: "",
    strokeStyle: "",
    lineWidth: 1,
    globalAlpha: 1,
    fillRect(...box: number[]) {
      fills.push({ box, fill: String(this.fillStyle), alpha: this.globalAlpha });
    },
    beginPath() {},
    moveTo(x: number, y: number) {
      points.push([x, y]);
    },
    lineTo(x: number, y: number) {
      points.push([x, y]);
    },
    stroke() {},
  };
  return { context: context as unknown as MarksContext, fills, points };
}

describe("barColour", () => {
  it("colours by status when it is not ok, else by kind", () => {
    expect(barColour({ kind: "tool", status: "ok" })).toBe("#5fd38d");
    expect(barColour({ kind: "tool", status: "denied" })).toBe("#ff6b6b");
    expect(barColour({ kind: "model", status: "ok" })).toBe("#6cb6ff");
  });
});

describe("drawMarks", () => {
  const events = TimelineEventColumns.fromRows([event(0, "model"), event(1, "tool"), event(2, "tool", "error")], ["model", "tool"]);
  const lanes = [
    { top: 0, rows: 1 },
    { top: 30, rows: 2 },
  ];

  it("fills each mark in its lane and row and dims what the filters leave out", () => {
    const { context, fills } = recorder();
    const drawn = drawMarks(context, {
      lanes,
      bars: [[bar(0, 0, 50)], [bar(1, 10, 20), bar(2, 30, 40, 1)]],
      events,
      matchMask: Uint8Array.from([1, 0, 1]),
    });
    expect(drawn).toBe(3);
    expect(fills).toEqual([
      { box: [0, 1, 50, BAR_ROW_HEIGHT - 2], fill: "#6cb6ff", alpha: 1 },
      { box: [10, 31, 10, BAR_ROW_HEIGHT - 2], fill: "#5fd38d", alpha: DIM_OPACITY },
      { box: [30, 31 + BAR_ROW_HEIGHT, 10, BAR_ROW_HEIGHT - 2], fill: "#ff6b6b", alpha: 1 },
    ]);
  });

  it("draws a permission wait inside its bar, not inside a mark that stands for several events", () => {
    const { context, fills } = recorder();
    drawMarks(context, {
      lanes,
      bars: [[], [bar(1, 10, 40, 0, { wait: { x0: 10, x1: 25 } }), bar(2, 50, 60, 0, { count: 3, wait: { x0: 50, x1: 55 } })]],
      events,
      matchMask: null,
    });
    expect(fills.map((fill) => fill.box)).toEqual([
      [10, 31, 30, BAR_ROW_HEIGHT - 2],
      [10, 31, 15, BAR_ROW_HEIGHT - 2],
      [50, 31, 10, BAR_ROW_HEIGHT - 2],
    ]);
  });
});

describe("drawMarks' hatching", () => {
  it("keeps every stripe of a wait inside its box, narrow or wide", () => {
    for (const width of [1, 4, 15, 80]) {
      const { context, points } = recorder();
      drawMarks(context, {
        lanes: [{ top: 0, rows: 1 }],
        bars: [[bar(0, 10, 10 + width + 5, 0, { wait: { x0: 10, x1: 10 + width } })]],
        events: TimelineEventColumns.fromRows([event(0, "tool")], ["tool"]),
        matchMask: null,
      });
      expect(points.length).toBeGreaterThan(0);
      for (const [x, y] of points) {
        expect(x).toBeGreaterThanOrEqual(10);
        expect(x).toBeLessThanOrEqual(10 + width);
        expect(y).toBeGreaterThanOrEqual(1);
        expect(y).toBeLessThanOrEqual(1 + BAR_ROW_HEIGHT - 2);
      }
    }
  });
});

describe("selectedMarkBox", () => {
  const lanes = [
    { top: 0, rows: 1 },
    { top: 30, rows: 2 },
  ];
  const bars = [[bar(0, 0, 50)], [bar(1, 10, 20), bar(2, 30, 40, 1)]];

  it("is the box of the selected event's mark, in its lane and row", () => {
    expect(selectedMarkBox(lanes, bars, 2)).toEqual([30, 31 + BAR_ROW_HEIGHT, 10, BAR_ROW_HEIGHT - 2]);
    expect(selectedMarkBox(lanes, bars, 0)).toEqual([0, 1, 50, BAR_ROW_HEIGHT - 2]);
  });

  it("is null with nothing selected or when the selected event has no mark in the window", () => {
    expect(selectedMarkBox(lanes, bars, null)).toBeNull();
    expect(selectedMarkBox(lanes, bars, 7)).toBeNull();
  });
});

describe("markAt", () => {
  const lanes = [
    { top: 0, rows: 1 },
    { top: 30, rows: 2 },
  ];
  const bars = [[bar(0, 0, 50)], [bar(1, 10, 20), bar(2, 15, 40, 1), bar(3, 18, 30)]];

  it("finds the mark under a point by lane, row and x (the one drawn last where two touch)", () => {
    expect(markAt(lanes, bars, 25, 5)?.index).toBe(0);
    expect(markAt(lanes, bars, 12, 35)?.index).toBe(1);
    expect(markAt(lanes, bars, 19, 35)?.index).toBe(3);
    expect(markAt(lanes, bars, 19, 35 + BAR_ROW_HEIGHT)?.index).toBe(2);
  });

  it("is null between lanes, past a lane's rows, and beside every mark", () => {
    expect(markAt(lanes, bars, 10, 20)).toBeNull();
    expect(markAt(lanes, bars, 10, 30 + 2 * BAR_ROW_HEIGHT + 1)).toBeNull();
    expect(markAt(lanes, bars, 45, 35)).toBeNull();
  });
});
