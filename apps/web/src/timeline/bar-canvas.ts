import type { TimelineRow as TimelineEvent } from "@cairn/core/timeline";
import type { Bar } from "./viewport";

/** The height of one row of bars in a lane, px. */
export const BAR_ROW_HEIGHT = 14;

/**
 * Above this many marks in the window the lanes are drawn on one canvas instead of one SVG element per mark:
 * thousands of elements cost more to create, style and lay out than the rest of the page together. Below it
 * each mark stays an element (a tooltip, a test or an assistive tool can find it).
 */
export const SVG_MARKS_LIMIT = 400;

const KIND_COLOURS: Readonly<Record<string, string>> = {
  model: "#6cb6ff",
  tool: "#5fd38d",
  permission: "#f5c451",
  classifier: "#4fd1c5",
  hook: "#c792ea",
  compaction: "#ff9e64",
  prompt: "#d8dee9",
  notice: "#8b93a3",
  error: "#ff6b6b",
  tombstone: "#8b6b6b",
};
const STATUS_COLOURS: Readonly<Record<string, string>> = {
  error: "#ff6b6b",
  denied: "#ff6b6b",
  tombstoned: "#8b6b6b",
  partial: "#b08d3c",
  unfinished: "#b08d3c",
};
const WAIT_COLOUR = "#f5c451";
const WAIT_STRIPE = "#15171c";
const SELECTED_STROKE = "#ffffff";
/** The opacity of a mark the filters leave out. */
export const DIM_OPACITY = 0.22;

/** A mark's fill: its status when that is not ok, else its kind (one definition for the SVG and the canvas). */
export function barColour(event: Pick<TimelineEvent, "kind" | "status">): string {
  return STATUS_COLOURS[event.status] ?? KIND_COLOURS[event.kind] ?? KIND_COLOURS.notice!;
}

/** Where a lane's rows of marks are, px from the top of the marks area. */
export type LaneBox = { top: number; rows: number };

/** The parts of a 2D context the marks need (a test hands in a recorder). */
export type MarksContext = Pick<
  CanvasRenderingContext2D,
  | "fillStyle"
  | "strokeStyle"
  | "lineWidth"
  | "globalAlpha"
  | "fillRect"
  | "strokeRect"
  | "beginPath"
  | "moveTo"
  | "lineTo"
  | "stroke"
  | "save"
  | "restore"
  | "rect"
  | "clip"
>;

export type MarksToDraw = {
  lanes: readonly LaneBox[];
  /** Per lane (in the order of `lanes`), its marks in the window. */
  bars: readonly (readonly Bar[])[];
  events: readonly TimelineEvent[];
  selected: number | null;
  matchMask: Uint8Array | null;
};

/** Draws every lane's marks (px from the marks area's top left), a permission wait hatched inside its bar. */
export function drawMarks(context: MarksContext, marks: MarksToDraw): number {
  let drawn = 0;
  let selectedBox: [number, number, number, number] | null = null;
  marks.lanes.forEach((lane, position) => {
    for (const bar of marks.bars[position] ?? []) {
      const event = marks.events[bar.index];
      if (!event) continue;
      const box = barBox(lane, bar);
      context.globalAlpha = marks.matchMask !== null && marks.matchMask[bar.index] !== 1 ? DIM_OPACITY : 1;
      context.fillStyle = barColour(event);
      context.fillRect(...box);
      if (bar.wait && bar.count === 1) drawWait(context, bar.wait.x0, box[1], Math.max(1, bar.wait.x1 - bar.wait.x0), BAR_ROW_HEIGHT - 2);
      if (bar.index === marks.selected) selectedBox = box;
      drawn++;
    }
  });
  context.globalAlpha = 1;
  if (selectedBox) {
    context.strokeStyle = SELECTED_STROKE;
    context.lineWidth = 1.5;
    context.strokeRect(...(selectedBox as [number, number, number, number]));
  }
  return drawn;
}

/** The mark at (x, y) of the marks area (the last drawn, on top, where two touch), or null. */
export function markAt(lanes: readonly LaneBox[], bars: readonly (readonly Bar[])[], x: number, y: number): Bar | null {
  for (const [position, lane] of lanes.entries()) {
    if (y < lane.top || y >= lane.top + lane.rows * BAR_ROW_HEIGHT) continue;
    const row = Math.floor((y - lane.top) / BAR_ROW_HEIGHT);
    let found: Bar | null = null;
    for (const bar of bars[position] ?? []) {
      if (bar.row === row && x >= bar.x0 - 1 && x <= Math.max(bar.x1, bar.x0 + 1) + 1) found = bar;
    }
    return found;
  }
  return null;
}

/** The rectangle a mark fills: [x, y, width, height]. */
function barBox(lane: LaneBox, bar: Bar): [number, number, number, number] {
  const y = lane.top + bar.row * BAR_ROW_HEIGHT + 1;
  return [bar.x0, bar.point ? y + 2 : y, Math.max(1, bar.x1 - bar.x0), bar.point ? BAR_ROW_HEIGHT - 6 : BAR_ROW_HEIGHT - 2];
}

/** A hatched box (the SVG draws the same with a pattern). */
function drawWait(context: MarksContext, x: number, y: number, width: number, height: number): void {
  context.fillStyle = WAIT_COLOUR;
  context.fillRect(x, y, width, height);
  context.save();
  context.beginPath();
  context.rect(x, y, width, height);
  context.clip();
  context.strokeStyle = WAIT_STRIPE;
  context.lineWidth = 2;
  context.beginPath();
  for (let offset = -height; offset < width; offset += 6) {
    context.moveTo(x + offset, y + height);
    context.lineTo(x + offset + height, y);
  }
  context.stroke();
  context.restore();
}
