"use client";

import type { TimelineEventColumns } from "@cairn/core/timeline";
import { Fragment, memo } from "react";
import { BAR_ROW_HEIGHT, barColour } from "./bar-canvas";
import type { Bar } from "./viewport";
import styles from "./timeline.module.css";

export type LaneBarsProps = {
  bars: readonly Bar[];
  events: TimelineEventColumns;
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
  function LaneBars({ bars, events, selected, matchMask, onSelect }: LaneBarsProps) {
    return bars.map((bar) => {
      const kind = events.kind(bar.index);
      const status = events.status(bar.index);
      const toolName = events.toolName(bar.index);
      const dim = matchMask !== null && matchMask[bar.index] !== 1;
      const className = [styles.bar, dim ? styles.dim : "", bar.index === selected ? styles.selected : ""].join(" ");
      const y = bar.row * BAR_ROW_HEIGHT + 1;
      return (
        <Fragment key={bar.index}>
          <rect
            data-testid="timeline-bar"
            data-kind={kind}
            data-tool-name={toolName ?? undefined}
            data-status={status}
            data-index={bar.index}
            data-count={bar.count > 1 ? bar.count : undefined}
            data-point={bar.point ? "true" : undefined}
            className={className}
            fill={barColour({ kind, status })}
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
    before.matchMask === after.matchMask &&
    before.onSelect === after.onSelect &&
    (before.selected === after.selected || (!holds(before.bars, before.selected) && !holds(after.bars, after.selected))),
);

function holds(bars: readonly Bar[], index: number | null): boolean {
  return index !== null && bars.some((bar) => bar.index === index);
}

/** The tooltip of the mark `rect` (a `timeline-bar`), or null for anything else. */
export function barTitle(rect: Element, events: TimelineEventColumns): string | null {
  const index = rect.getAttribute("data-index");
  if (index === null) return null;
  return markTitle({ index: Number(index), count: Number(rect.getAttribute("data-count") ?? "1") }, events);
}

/** The tooltip of a mark: its event, or how many events it stands for. */
export function markTitle(mark: Pick<Bar, "index" | "count">, events: TimelineEventColumns): string | null {
  if (!(mark.index >= 0 && mark.index < events.length)) return null;
  const title = events.title(mark.index);
  return mark.count > 1 ? `${mark.count} events from ${title}` : `${title}: ${events.summary(mark.index)}`;
}
