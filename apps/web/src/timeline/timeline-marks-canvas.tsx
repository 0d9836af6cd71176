"use client";

import type { TimelineEventColumns } from "@cairn/core/timeline";
import { useLayoutEffect, useRef, type MouseEvent as ReactMouseEvent } from "react";
import { drawMarks, markAt, selectedMarkBox, type LaneBox } from "./bar-canvas";
import { markTitle } from "./timeline-lane-bars";
import type { Bar } from "./viewport";
import styles from "./timeline.module.css";

export type TimelineMarksCanvasProps = {
  /** Where the canvas sits in the axis, px. */
  left: number;
  top: number;
  width: number;
  height: number;
  lanes: readonly LaneBox[];
  bars: readonly (readonly Bar[])[];
  events: TimelineEventColumns;
  selected: number | null;
  matchMask: Uint8Array | null;
  /** A click on a mark (the axis ignores the click that ends a drag). */
  onSelect: (index: number) => void;
};

/**
 * Every lane's marks on one canvas, for a window with too many marks to make an element of each: drawn
 * again when the marks or the filters change, a click finds its mark by arithmetic on the lanes' rows, and
 * the canvas's tooltip follows the mark under the pointer. The selected mark's outline is an element over the
 * canvas, so a selection (a key press) moves one box instead of drawing every mark again.
 */
export function TimelineMarksCanvas({ left, top, width, height, lanes, bars, events, selected, matchMask, onSelect }: TimelineMarksCanvasProps) {
  const canvas = useRef<HTMLCanvasElement>(null);
  const ratio = typeof window === "undefined" ? 1 : window.devicePixelRatio || 1;
  useLayoutEffect(() => {
    const element = canvas.current;
    const context = element?.getContext("2d");
    if (!element || !context) return;
    context.setTransform(ratio, 0, 0, ratio, 0, 0);
    context.clearRect(0, 0, width, height);
    const drawn = drawMarks(context, { lanes, bars, events, matchMask });
    element.dataset.marks = String(drawn);
    element.dataset.drawn = "true";
  }, [lanes, bars, events, matchMask, width, height, ratio]);
  const outline = selectedMarkBox(lanes, bars, selected);

  const markUnder = (event: ReactMouseEvent<HTMLCanvasElement>) => {
    const box = event.currentTarget.getBoundingClientRect();
    return markAt(lanes, bars, event.clientX - box.left, event.clientY - box.top);
  };
  return (
    <>
      <canvas
        ref={canvas}
        className={styles.marksCanvas}
        data-testid="timeline-canvas"
        style={{ left, top, width, height }}
        width={Math.round(width * ratio)}
        height={Math.round(height * ratio)}
        onPointerMove={(event) => {
          const mark = markUnder(event);
          event.currentTarget.title = (mark && markTitle(mark, events)) ?? "";
        }}
        onClick={(event) => {
          const mark = markUnder(event);
          if (mark) onSelect(mark.index);
        }}
      />
      {outline ? (
        <div
          className={styles.marksSelected}
          data-testid="timeline-canvas-selected"
          style={{ left: left + outline[0] - 1, top: top + outline[1] - 1, width: outline[2] + 2, height: outline[3] + 2 }}
        />
      ) : null}
    </>
  );
}
