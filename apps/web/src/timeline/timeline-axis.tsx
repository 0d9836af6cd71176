"use client";

import { totalsAt, type TimelineRow as TimelineEvent, type TimelineRows as Timeline } from "@cairn/core/timeline";
import { useEffect, useMemo, useRef, useState, type PointerEvent as ReactPointerEvent } from "react";
import { formatCost, formatOffset, formatTokens } from "./format";
import { laneBars, panViewport, timeTicks, zoomViewport, type Viewport } from "./viewport";
import styles from "./timeline.module.css";

const LABEL_WIDTH = 150;
const AXIS_HEIGHT = 22;
const ROW_HEIGHT = 14;
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
 * The lanes on a time axis, as SVG: only what the window shows is drawn (each lane found by binary
 * search, tiny neighbours merged), so the cost follows the width, not the session's size. Wheel
 * zooms around the pointer, shift+wheel and drag pan.
 */
export function TimelineAxis({ timeline, viewport, onViewportChange, selected, onSelect, matchMask }: TimelineAxisProps) {
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
  const onPointerDown = (event: ReactPointerEvent<SVGSVGElement>) => {
    if (event.button !== 0) return;
    drag.current = { x: event.clientX, viewport: viewportRef.current, moved: false };
  };
  const onPointerMove = (event: ReactPointerEvent<SVGSVGElement>) => {
    const start = drag.current;
    if (!start) return;
    const dx = event.clientX - start.x;
    if (Math.abs(dx) > 3 && !start.moved) {
      start.moved = true;
      event.currentTarget.setPointerCapture(event.pointerId);
    }
    if (start.moved) onViewportChange(panViewport(start.viewport, -dx / chartWidth));
  };
  const endDrag = () => {
    drag.current = null;
  };

  const layout = useMemo(() => {
    let y = AXIS_HEIGHT;
    return timeline.lanes.map((lane) => {
      const rows = Math.min(MAX_ROWS, Math.max(1, lane.rows));
      const top = y;
      const height = rows * ROW_HEIGHT + LANE_PADDING * 2;
      y += height;
      return { lane, top, height, rows };
    });
  }, [timeline]);
  const lanesBottom = layout.length > 0 ? layout[layout.length - 1]!.top + layout[layout.length - 1]!.height : AXIS_HEIGHT;
  const height = lanesBottom + TOTALS_HEIGHT;
  const ticks = timeTicks(viewport, chartWidth, timeline.startMs);
  const scale = chartWidth / (viewport.t1 - viewport.t0);

  const clickBar = (index: number) => {
    if (drag.current?.moved) return;
    onSelect(index);
  };

  return (
    <div ref={container} data-testid="timeline-axis">
      <svg
        className={styles.axisSvg}
        width={width}
        height={height}
        onPointerDown={onPointerDown}
        onPointerMove={onPointerMove}
        onPointerUp={endDrag}
        onPointerCancel={endDrag}
        role="img"
        aria-label="Session timeline"
      >
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
            <svg x={LABEL_WIDTH} y={top + LANE_PADDING} width={chartWidth} height={rows * ROW_HEIGHT} overflow="hidden">
              {laneBars(lane, timeline.events, viewport, chartWidth, (event) => (lane.kind === "errors" ? 0 : Math.min(rows - 1, event.row))).map((bar) => {
                const event = timeline.events[bar.index]!;
                const dim = matchMask !== null && matchMask[bar.index] !== 1;
                const className = [
                  styles.bar,
                  colourOf(event, lane.kind === "errors"),
                  dim ? styles.dim : "",
                  bar.index === selected ? styles.selected : "",
                ].join(" ");
                const y = bar.row * ROW_HEIGHT + 1;
                return (
                  <g key={bar.index}>
                    <rect
                      data-testid="timeline-bar"
                      data-kind={event.kind}
                      data-tool-name={event.toolName ?? undefined}
                      data-status={event.status}
                      data-index={bar.index}
                      data-count={bar.count > 1 ? bar.count : undefined}
                      data-point={bar.point ? "true" : undefined}
                      className={className}
                      x={bar.x0}
                      y={bar.point ? y + 2 : y}
                      width={Math.max(1, bar.x1 - bar.x0)}
                      height={bar.point ? ROW_HEIGHT - 6 : ROW_HEIGHT - 2}
                      rx={bar.point ? 1.5 : 2}
                      onClick={() => clickBar(bar.index)}
                    >
                      <title>{bar.count > 1 ? `${bar.count} events from ${event.title}` : `${event.title}: ${event.summary}`}</title>
                    </rect>
                    {bar.wait && bar.count === 1 ? (
                      <rect
                        className={styles.wait}
                        data-testid="timeline-wait"
                        x={bar.wait.x0}
                        y={y}
                        width={Math.max(1, bar.wait.x1 - bar.wait.x0)}
                        height={ROW_HEIGHT - 2}
                      />
                    ) : null}
                  </g>
                );
              })}
            </svg>
          </g>
        ))}
        <TotalsTrack timeline={timeline} viewport={viewport} top={lanesBottom} width={chartWidth} />
      </svg>
    </div>
  );
}

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

function colourOf(event: TimelineEvent, inErrorsLane: boolean): string {
  if (inErrorsLane || event.status !== "ok") {
    const byStatus = styles[`s-${event.status}`];
    if (byStatus && event.status !== "ok") return byStatus;
  }
  return styles[`k-${event.kind}`] ?? "";
}
