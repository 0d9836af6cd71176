"use client";

import type { TimelineRow as TimelineEvent } from "@cairn/core/timeline";
import { Fragment, memo } from "react";
import type { Bar } from "./viewport";
import styles from "./timeline.module.css";

/** The height of one row of bars in a lane, px. */
export const BAR_ROW_HEIGHT = 14;

export type LaneBarsProps = {
  bars: readonly Bar[];
  events: readonly TimelineEvent[];
  inErrorsLane: boolean;
  selected: number | null;
  /** 1 for events the filters let through; null when nothing is filtered. */
  matchMask: Uint8Array | null;
  onSelect: (index: number) => void;
};

/**
 * One lane's marks as SVG rects (a tool call's permission wait drawn inside its bar). Memoized: a lane is
 * drawn again only when its marks, the filters or its own selected mark change. A mark's tooltip is the
 * axis's one title, set when the pointer comes over it (`barTitle`): no element per mark.
 */
export const LaneBars = memo(
  function LaneBars({ bars, events, inErrorsLane, selected, matchMask, onSelect }: LaneBarsProps) {
    return bars.map((bar) => {
      const event = events[bar.index]!;
      const dim = matchMask !== null && matchMask[bar.index] !== 1;
      const className = [styles.bar, colourOf(event, inErrorsLane), dim ? styles.dim : "", bar.index === selected ? styles.selected : ""].join(" ");
      const y = bar.row * BAR_ROW_HEIGHT + 1;
      return (
        <Fragment key={bar.index}>
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
            height={bar.point ? BAR_ROW_HEIGHT - 6 : BAR_ROW_HEIGHT - 2}
            rx={bar.point ? 1.5 : 2}
            onClick={() => onSelect(bar.index)}
          />
          {bar.wait && bar.count === 1 ? (
            <rect
              className={styles.wait}
              data-testid="timeline-wait"
              x={bar.wait.x0}
              y={y}
              width={Math.max(1, bar.wait.x1 - bar.wait.x0)}
              height={BAR_ROW_HEIGHT - 2}
            />
          ) : null}
        </Fragment>
      );
    });
  },
  // A new selection redraws only the lanes it leaves or enters.
  (before, after) =>
    before.bars === after.bars &&
    before.events === after.events &&
    before.inErrorsLane === after.inErrorsLane &&
    before.matchMask === after.matchMask &&
    before.onSelect === after.onSelect &&
    (before.selected === after.selected || (!holds(before.bars, before.selected) && !holds(after.bars, after.selected))),
);

function holds(bars: readonly Bar[], index: number | null): boolean {
  return index !== null && bars.some((bar) => bar.index === index);
}

function colourOf(event: TimelineEvent, inErrorsLane: boolean): string {
  if (inErrorsLane || event.status !== "ok") {
    const byStatus = styles[`s-${event.status}`];
    if (byStatus && event.status !== "ok") return byStatus;
  }
  return styles[`k-${event.kind}`] ?? "";
}

/** The tooltip of the mark `rect` (a `timeline-bar`), or null for anything else. */
export function barTitle(rect: Element, events: readonly TimelineEvent[]): string | null {
  const index = rect.getAttribute("data-index");
  const event = index === null ? undefined : events[Number(index)];
  if (!event) return null;
  const count = Number(rect.getAttribute("data-count") ?? "1");
  return count > 1 ? `${count} events from ${event.title}` : `${event.title}: ${event.summary}`;
}
