import type { TimelineEventColumns, TimelineLane, TimelineRows as Timeline } from "@cairn/core/timeline";

/** The visible time window, epoch ms. */
export type Viewport = { t0: number; t1: number };

/** The smallest window a zoom may reach: one millisecond shown over the whole width is already absurd. */
const MIN_SPAN_MS = 5;

/** The whole session with a little margin; a session of one instant gets one second around it. */
export function fitViewport(timeline: Pick<Timeline, "startMs" | "endMs">): Viewport {
  const span = timeline.endMs - timeline.startMs;
  if (span <= 0) return { t0: timeline.startMs - 500, t1: timeline.startMs + 500 };
  const margin = span * 0.02;
  return { t0: timeline.startMs - margin, t1: timeline.endMs + margin };
}

/** Zooms by `factor` (< 1 zooms in) keeping the time under `anchor` (0..1 of the width) in place. */
export function zoomViewport(viewport: Viewport, factor: number, anchor = 0.5): Viewport {
  const span = viewport.t1 - viewport.t0;
  const next = Math.max(MIN_SPAN_MS, span * factor);
  const at = viewport.t0 + span * anchor;
  return { t0: at - next * anchor, t1: at - next * anchor + next };
}

/** Moves the window by a share of its width (positive: later). */
export function panViewport(viewport: Viewport, share: number): Viewport {
  const shift = (viewport.t1 - viewport.t0) * share;
  return { t0: viewport.t0 + shift, t1: viewport.t1 + shift };
}

/** The same window moved so that `t` is in it (centred when it was outside). */
export function revealTime(viewport: Viewport, start: number, end: number): Viewport {
  if (start >= viewport.t0 && end <= viewport.t1) return viewport;
  const span = viewport.t1 - viewport.t0;
  const middle = (start + end) / 2;
  return { t0: middle - span / 2, t1: middle + span / 2 };
}

/** One drawn mark: an event, or a run of events too small to tell apart at this zoom. */
export type Bar = {
  index: number;
  count: number;
  x0: number;
  x1: number;
  row: number;
  point: boolean;
  /** The permission wait inside a tool bar, in px. */
  wait: { x0: number; x1: number } | null;
};

/** The narrowest a duration is drawn, in px, so that a 1 ms call stays visible and clickable. */
export const MIN_BAR_PX = 3;

/**
 * The marks of one lane in the window, in px from the window's left edge: finds the first item
 * that can overlap the window with a binary search (items are ordered by start; no item is longer
 * than `maxDurationMs`), stops at the first that starts after it, and merges neighbours narrower
 * than a few pixels, so a zoomed-out view of 100,000 events draws a few hundred marks.
 */
export function laneBars(
  lane: TimelineLane,
  events: TimelineEventColumns,
  viewport: Viewport,
  width: number,
  /** The row an event is drawn in, from its sub-row in the lane. */
  rowOf: (row: number) => number,
): Bar[] {
  const scale = width / (viewport.t1 - viewport.t0);
  const items = lane.items;
  let low = 0;
  let high = items.length;
  const from = viewport.t0 - lane.maxDurationMs;
  while (low < high) {
    const middle = (low + high) >>> 1;
    if (events.at(items[middle]!) < from) low = middle + 1;
    else high = middle;
  }
  const bars: Bar[] = [];
  const lastByRow: Array<Bar | undefined> = [];
  for (let position = low; position < items.length; position++) {
    const index = items[position]!;
    const at = events.at(index);
    if (at > viewport.t1) break;
    const eventEnd = events.end(index);
    const point = events.start(index) === null || eventEnd === null;
    const end = point ? at : eventEnd;
    if (end < viewport.t0) continue;
    const x0 = (at - viewport.t0) * scale;
    const x1 = point ? x0 + MIN_BAR_PX : Math.max(x0 + MIN_BAR_PX, (end - viewport.t0) * scale);
    const row = rowOf(events.row(index));
    const last = lastByRow[row];
    if (last && x1 - x0 <= MIN_BAR_PX + 1 && last.x1 - last.x0 <= MIN_BAR_PX * 4 && x0 <= last.x1 + 1) {
      last.x1 = Math.max(last.x1, x1);
      last.count++;
      continue;
    }
    const span = events.wait(index);
    const wait = span ? { x0: (span.start - viewport.t0) * scale, x1: (span.end - viewport.t0) * scale } : null;
    const bar: Bar = { index, count: 1, x0, x1, row, point, wait };
    bars.push(bar);
    lastByRow[row] = bar;
  }
  return bars;
}

/** Ticks at round times since `origin` (the session's start), spaced 1, 2 or 5 × 10^n ms apart. */
export function timeTicks(viewport: Viewport, width: number, origin = 0, minGapPx = 90): number[] {
  const span = viewport.t1 - viewport.t0;
  const rough = (span / Math.max(1, width)) * minGapPx;
  const power = 10 ** Math.floor(Math.log10(Math.max(rough, 1e-3)));
  const step = [1, 2, 5, 10].map((multiple) => multiple * power).find((candidate) => candidate >= rough) ?? power * 10;
  const ticks: number[] = [];
  for (let tick = origin + Math.ceil((viewport.t0 - origin) / step) * step; tick <= viewport.t1 && ticks.length < 200; tick += step) ticks.push(tick);
  return ticks;
}
