import type { TimelineEventColumns, TimelineRow as TimelineEvent } from "@cairn/core/timeline";
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
  "fillStyle" | "strokeStyle" | "lineWidth" | "globalAlpha" | "fillRect" | "beginPath" | "moveTo" | "lineTo" | "stroke" | "save" | "restore" | "rect" | "clip"
>;

export type MarksToDraw = {
  lanes: readonly LaneBox[];
  /** Per lane (in the order of `lanes`), its marks in the window. */
  bars: readonly (readonly Bar[])[];
  events: TimelineEventColumns;
  matchMask: Uint8Array | null;
};

/**
 * Draws every lane's marks (px from the marks area's top left), a permission wait hatched inside its bar. The
 * selection is not drawn here (see `selectedMarkBox`): moving it does not draw every mark again.
 */
export function drawMarks(context: MarksContext, marks: MarksToDraw): number {
  let drawn = 0;
  // The context's state is set only when it changes: each colour string set is parsed again.
  let alpha = Number.NaN;
  let fill = "";
  marks.lanes.forEach((lane, position) => {
    for (const bar of marks.bars[position] ?? []) {
      if (!(bar.index >= 0 && bar.index < marks.events.length)) continue;
      const box = barBox(lane, bar);
      const barAlpha = marks.matchMask !== null && marks.matchMask[bar.index] !== 1 ? DIM_OPACITY : 1;
      if (barAlpha !== alpha) context.globalAlpha = alpha = barAlpha;
      const colour = STATUS_COLOURS[marks.events.status(bar.index)] ?? KIND_COLOURS[marks.events.kind(bar.index)] ?? KIND_COLOURS.notice!;
      if (colour !== fill) context.fillStyle = fill = colour;
      context.fillRect(...box);
      if (bar.wait && bar.count === 1) {
        drawWait(context, bar.wait.x0, box[1], Math.max(1, bar.wait.x1 - bar.wait.x0), BAR_ROW_HEIGHT - 2);
        fill = WAIT_COLOUR;
      }
      drawn++;
    }
  });
  context.globalAlpha = 1;
  return drawn;
}

/** The box [x, y, width, height] of the mark drawn for event `selected` (px from the marks area's top left), or null. */
export function selectedMarkBox(
  lanes: readonly LaneBox[],
  bars: readonly (readonly Bar[])[],
  selected: number | null,
): [number, number, number, number] | null {
  if (selected === null) return null;
  for (const [position, lane] of lanes.entries()) {
    for (const bar of bars[position] ?? []) if (bar.index === selected) return barBox(lane, bar);
  }
  return null;
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

/**
 * A hatched box (the SVG draws the same with a pattern): each stripe is cut to the box by arithmetic. A clip
 * region per box (save, clip, restore) cost more than every other mark together on a software canvas.
 */
function drawWait(context: MarksContext, x: number, y: number, width: number, height: number): void {
  context.fillStyle = WAIT_COLOUR;
  context.fillRect(x, y, width, height);
  context.strokeStyle = WAIT_STRIPE;
  context.lineWidth = 2;
  context.beginPath();
  // A stripe rises from (x + offset, y + height) to (x + offset + height, y); the part inside the box is kept.
  for (let offset = -height; offset < width; offset += 6) {
    const from = Math.max(0, -offset);
    const to = Math.min(height, width - offset);
    if (to <= from) continue;
    context.moveTo(x + offset + from, y + height - from);
    context.lineTo(x + offset + to, y + height - to);
  }
  context.stroke();
}
