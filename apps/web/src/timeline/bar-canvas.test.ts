import type { TimelineRow } from "@cairn/core/timeline";
import { describe, expect, it } from "vitest";
import { BAR_ROW_HEIGHT, barColour, DIM_OPACITY, drawMarks, markAt, type MarksContext } from "./bar-canvas";
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
  const strokes: number[][] = [];
  const context = {
    fillStyle: "",
    strokeStyle: "",
    lineWidth: 1,
    globalAlpha: 1,
    fillRect(...box: number[]) {
      fills.push({ box, fill: String(this.fillStyle), alpha: this.globalAlpha });
    },
    strokeRect(...box: number[]) {
      strokes.push(box);
    },
    beginPath() {},
    moveTo() {},
    lineTo() {},
    stroke() {},
    save() {},
    restore() {},
    rect() {},
    clip() {},
  };
  return { context: context as unknown as MarksContext, fills, strokes };
}

describe("barColour", () => {
  it("colours by status when it is not ok, else by kind", () => {
    expect(barColour({ kind: "tool", status: "ok" })).toBe("#5fd38d");
    expect(barColour({ kind: "tool", status: "denied" })).toBe("#ff6b6b");
    expect(barColour({ kind: "model", status: "ok" })).toBe("#6cb6ff");
  });
});

describe("drawMarks", () => {
  const events = [event(0, "model"), event(1, "tool"), event(2, "tool", "error")];
  const lanes = [
    { top: 0, rows: 1 },
    { top: 30, rows: 2 },
  ];

  it("fills each mark in its lane and row, dims what the filters leave out, outlines the selected one", () => {
    const { context, fills, strokes } = recorder();
    const drawn = drawMarks(context, {
      lanes,
      bars: [[bar(0, 0, 50)], [bar(1, 10, 20), bar(2, 30, 40, 1)]],
      events,
      selected: 2,
      matchMask: Uint8Array.from([1, 0, 1]),
    });
    expect(drawn).toBe(3);
    expect(fills).toEqual([
      { box: [0, 1, 50, BAR_ROW_HEIGHT - 2], fill: "#6cb6ff", alpha: 1 },
      { box: [10, 31, 10, BAR_ROW_HEIGHT - 2], fill: "#5fd38d", alpha: DIM_OPACITY },
      { box: [30, 31 + BAR_ROW_HEIGHT, 10, BAR_ROW_HEIGHT - 2], fill: "#ff6b6b", alpha: 1 },
    ]);
    expect(strokes).toEqual([[30, 31 + BAR_ROW_HEIGHT, 10, BAR_ROW_HEIGHT - 2]]);
  });

  it("draws a permission wait inside its bar, not inside a mark that stands for several events", () => {
    const { context, fills } = recorder();
    drawMarks(context, {
      lanes,
      bars: [[], [bar(1, 10, 40, 0, { wait: { x0: 10, x1: 25 } }), bar(2, 50, 60, 0, { count: 3, wait: { x0: 50, x1: 55 } })]],
      events,
      selected: null,
      matchMask: null,
    });
    expect(fills.map((fill) => fill.box)).toEqual([
      [10, 31, 30, BAR_ROW_HEIGHT - 2],
      [10, 31, 15, BAR_ROW_HEIGHT - 2],
      [50, 31, 10, BAR_ROW_HEIGHT - 2],
    ]);
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
