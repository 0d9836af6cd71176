"use client";

import { totalsAt, type TimelineTable as Timeline } from "@cairn/core/timeline";
import { memo, useCallback, useEffect, useMemo, useRef, useState, type PointerEvent as ReactPointerEvent } from "react";
import { formatCost, formatOffset, formatTokens } from "./format";
import { BAR_ROW_HEIGHT, SVG_MARKS_LIMIT } from "./bar-canvas";
import { barTitle, LaneBars } from "./timeline-lane-bars";
import { TimelineMarksCanvas } from "./timeline-marks-canvas";
import { laneBars, panViewport, timeTicks, zoomViewport, type Viewport } from "./viewport";
import styles from "./timeline.module.css";

const LABEL_WIDTH = 150;
const AXIS_HEIGHT = 22;
const LANE_PADDING = 6;
/** Rows drawn per lane at most; deeper parallelism folds into the last one. */
const MAX_ROWS = 8;
const TOTALS_HEIGHT = 44;

export type TimelineAxisProps = {
  timeline: Timeline;
  viewport: Viewport;
  onViewportChange: (viewport: Viewport) => void;
  selected: number | null;
  onSelect: (index: number) => void;
  /** 1 for events the filters let through; null when nothing is filtered. */
  matchMask: Uint8Array | null;
};

/**
 * The lanes on a time axis: only what the window shows is drawn (each lane found by binary search, tiny
 * neighbours merged), so the cost follows the width, not the session's size. The axis, lanes and totals are
 * SVG; the marks are SVG elements too while they are few, else drawn on one canvas over the lanes. Wheel
 * zooms around the pointer, shift+wheel and drag pan.
 */
export const TimelineAxis = memo(function TimelineAxis({ timeline, viewport, onViewportChange, selected, onSelect, matchMask }: TimelineAxisProps) {
  const container = useRef<HTMLDivElement>(null);
  const [width, setWidth] = useState(900);
  const chartWidth = Math.max(100, width - LABEL_WIDTH);
  const viewportRef = useRef(viewport);
  viewportRef.current = viewport;

  useEffect(() => {
    const element = container.current;
    if (!element) return;
    const observer = new ResizeObserver((entries) => {
      const measured = entries[0]?.contentRect.width;
      if (measured) setWidth(Math.floor(measured));
    });
    observer.observe(element);
    return () => observer.disconnect();
  }, []);

  // A non-passive listener: the wheel zooms the axis instead of scrolling the page.
  useEffect(() => {
    const element = container.current;
    if (!element) return;
    const onWheel = (event: WheelEvent) => {
      const box = element.getBoundingClientRect();
      const x = event.clientX - box.left - LABEL_WIDTH;
      if (x < 0) return;
      event.preventDefault();
      const current = viewportRef.current;
      if (event.shiftKey || Math.abs(event.deltaX) > Math.abs(event.deltaY)) {
        onViewportChange(panViewport(current, (event.deltaX || event.deltaY) / Math.max(1, box.width - LABEL_WIDTH)));
      } else {
        onViewportChange(zoomViewport(current, Math.exp(event.deltaY * 0.002), x / Math.max(1, box.width - LABEL_WIDTH)));
      }
    };
    element.addEventListener("wheel", onWheel, { passive: false });
    return () => element.removeEventListener("wheel", onWheel);
  }, [onViewportChange]);

  const drag = useRef<{ x: number; viewport: Viewport; moved: boolean } | null>(null);
  const onPointerDown = (event: ReactPointerEvent<HTMLDivElement>) => {
    if (event.button !== 0) return;
    drag.current = { x: event.clientX, viewport: viewportRef.current, moved: false };
  };
  const onPointerMove = (event: ReactPointerEvent<HTMLDivElement>) => {
    const start = drag.current;
    if (!start) return;
    const dx = event.clientX - start.x;
    if (Math.abs(dx) > 3 && !start.moved) {
      start.moved = true;
      event.currentTarget.setPointerCapture(event.pointerId);
    }
    if (start.moved) onViewportChange(panViewport(start.viewport, -dx / chartWidth));
  };
  // One title for the whole axis, set to the mark under the pointer: the browser's tooltip shows it.
  // React types a <title> as the HTML element; only its text is set.
  const title = useRef<HTMLTitleElement>(null);
  const onPointerOver = (event: ReactPointerEvent<SVGSVGElement>) => {
    const text = event.target instanceof Element ? barTitle(event.target, timeline.events) : null;
    if (title.current) title.current.textContent = text ?? "Session timeline";
  };
  const endDrag = () => {
    drag.current = null;
  };

  const layout = useMemo(() => {
    let y = AXIS_HEIGHT;
    return timeline.lanes.map((lane) => {
      const rows = Math.min(MAX_ROWS, Math.max(1, lane.rows));
      const top = y;
      const height = rows * BAR_ROW_HEIGHT + LANE_PADDING * 2;
      y += height;
      return { lane, top, height, rows };
    });
  }, [timeline]);
  // The marks of each lane: made again only when the events, the window or the width change (not on a selection).
  const lanesBars = useMemo(
    () =>
      layout.map(({ lane, rows }) => laneBars(lane, timeline.events, viewport, chartWidth, (row) => (lane.kind === "errors" ? 0 : Math.min(rows - 1, row)))),
    [layout, timeline, viewport, chartWidth],
  );
  const marks = lanesBars.reduce((sum, bars) => sum + bars.length, 0);
  const onCanvas = marks > SVG_MARKS_LIMIT;
  const laneBoxes = useMemo(() => layout.map(({ top, rows }) => ({ top: top + LANE_PADDING - AXIS_HEIGHT, rows })), [layout]);
  const lanesBottom = layout.length > 0 ? layout[layout.length - 1]!.top + layout[layout.length - 1]!.height : AXIS_HEIGHT;
  const height = lanesBottom + TOTALS_HEIGHT;
  const ticks = timeTicks(viewport, chartWidth, timeline.startMs);
  const scale = chartWidth / (viewport.t1 - viewport.t0);

  const clickBar = useCallback(
    (index: number) => {
      if (drag.current?.moved) return;
      onSelect(index);
    },
    [onSelect],
  );

  return (
    <div
      ref={container}
      data-testid="timeline-axis"
      data-marks={marks}
      data-drawn-on={onCanvas ? "canvas" : "svg"}
      style={{ position: "relative" }}
      onPointerDown={onPointerDown}
      onPointerMove={onPointerMove}
      onPointerUp={endDrag}
      onPointerCancel={endDrag}
    >
      <svg className={styles.axisSvg} width={width} height={height} onPointerOver={onPointerOver} role="img" aria-label="Session timeline">
        <title ref={title}>Session timeline</title>
        <defs>
          <pattern id="tl-wait-hatch" width="6" height="6" patternUnits="userSpaceOnUse" patternTransform="rotate(45)">
            <rect width="6" height="6" fill="#f5c451" />
            <line x1="0" y1="0" x2="0" y2="6" stroke="#15171c" strokeWidth="3" />
          </pattern>
        </defs>
        {ticks.map((tick) => {
          const x = LABEL_WIDTH + (tick - viewport.t0) * scale;
          return (
            <g key={tick}>
              <line className={styles.tick} x1={x} x2={x} y1={AXIS_HEIGHT - 4} y2={lanesBottom} />
              <text className={styles.tickLabel} x={x + 3} y={12}>
                {formatOffset(tick - timeline.startMs)}
              </text>
            </g>
          );
        })}
        {layout.map(({ lane, top, height: laneHeight, rows }, position) => (
          <g key={lane.id} data-testid="timeline-lane" data-lane={lane.id} data-lane-kind={lane.kind} data-items={lane.items.length}>
            <rect className={position % 2 === 0 ? styles.laneBg : styles.laneBgAlt} x={0} y={top} width={width} height={laneHeight} />
            <text className={styles.laneLabel} x={6} y={top + laneHeight / 2 + 4}>
              {lane.label.length > 22 ? `${lane.label.slice(0, 21)}…` : lane.label}
            </text>
            {onCanvas ? null : (
              <svg x={LABEL_WIDTH} y={top + LANE_PADDING} width={chartWidth} height={rows * BAR_ROW_HEIGHT} overflow="hidden">
                <LaneBars bars={lanesBars[position]!} events={timeline.events} selected={selected} matchMask={matchMask} onSelect={clickBar} />
              </svg>
            )}
          </g>
        ))}
        <TotalsTrack timeline={timeline} viewport={viewport} top={lanesBottom} width={chartWidth} />
      </svg>
      {onCanvas ? (
        <TimelineMarksCanvas
          left={LABEL_WIDTH}
          top={AXIS_HEIGHT}
          width={chartWidth}
          height={lanesBottom - AXIS_HEIGHT}
          lanes={laneBoxes}
          bars={lanesBars}
          events={timeline.events}
          selected={selected}
          matchMask={matchMask}
          onSelect={clickBar}
        />
      ) : null}
    </div>
  );
});

/** The running cost along the axis (one sample per 4 px), with the totals at the window's right edge. */
function TotalsTrack({ timeline, viewport, top, width }: { timeline: Timeline; viewport: Viewport; top: number; width: number }) {
  const { totals } = timeline;
  const final = totals.costUsd.length > 0 ? totals.costUsd[totals.costUsd.length - 1]! : 0;
  const finalTokens =
    totals.inputTokens.length > 0 ? totals.inputTokens[totals.inputTokens.length - 1]! + totals.outputTokens[totals.outputTokens.length - 1]! : 0;
  const points: string[] = [];
  const span = viewport.t1 - viewport.t0;
  for (let x = 0; x <= width; x += 4) {
    const at = totalsAt(totals, viewport.t0 + (span * x) / width);
    const value = final > 0 ? at.costUsd / final : finalTokens > 0 ? (at.tokens.input + at.tokens.output) / finalTokens : 0;
    points.push(`${LABEL_WIDTH + x},${(top + TOTALS_HEIGHT - 6 - value * (TOTALS_HEIGHT - 18)).toFixed(1)}`);
  }
  const atEnd = totalsAt(totals, viewport.t1);
  return (
    <g data-testid="timeline-totals" data-cost={atEnd.costUsd.toFixed(6)} data-input-tokens={atEnd.tokens.input} data-output-tokens={atEnd.tokens.output}>
      <text className={styles.laneLabel} x={6} y={top + 16}>
        Running totals
      </text>
      <polyline className={styles.totalsLine} points={points.join(" ")} />
      <text className={styles.totalsText} x={6} y={top + 32}>
        {`${formatCost(atEnd.costUsd)} · in ${formatTokens(atEnd.tokens.input)} · out ${formatTokens(atEnd.tokens.output)} · cache r ${formatTokens(atEnd.tokens.cacheRead)} w ${formatTokens(atEnd.tokens.cacheWrite)}`}
      </text>
    </g>
  );
}
