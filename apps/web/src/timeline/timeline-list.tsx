"use client";

import type { TimelineRow as TimelineEvent, TimelineTable as Timeline } from "@cairn/core/timeline";
import { memo, useEffect, useRef, useState, type ReactNode } from "react";
import { rowsWindow, scrollToRow } from "./fixed-rows";
import { formatDuration, formatOffset } from "./format";
import styles from "./timeline.module.css";

const ROW_HEIGHT = 40;
const EXPANDED_HEIGHT = 78;
/**
 * Rows drawn beyond each edge of the view, so a scroll shows drawn rows before React catches up. A few rows'
 * worth: a fast scroll replaces every row each frame anyway, and each row more is DOM to build and lay out.
 */
const OVERSCAN = 4;

export type TimelineListProps = {
  timeline: Timeline;
  /** Event indices shown, in time order; null for every event. */
  matches: readonly number[] | null;
  /** Position in `matches` of the selected event, or -1. */
  selectedPosition: number;
  selected: number | null;
  expanded: boolean;
  onSelect: (index: number) => void;
};

/**
 * The events as a virtualised list: only the rows in view exist, and finding them is arithmetic on the row
 * height (`fixed-rows`), so a million events cost what a hundred do.
 */
export function TimelineList({ timeline, matches, selectedPosition, selected, expanded, onSelect }: TimelineListProps) {
  const scroller = useRef<HTMLDivElement>(null);
  const count = matches ? matches.length : timeline.events.length;
  const rowHeight = expanded ? EXPANDED_HEIGHT : ROW_HEIGHT;
  const [scrollTop, setScrollTop] = useState(0);
  const [viewportHeight, setViewportHeight] = useState(600);
  const geometry = { count, rowHeight, viewportHeight };

  useEffect(() => {
    const element = scroller.current;
    if (!element) return;
    const observer = new ResizeObserver(() => setViewportHeight(element.clientHeight));
    observer.observe(element);
    setViewportHeight(element.clientHeight);
    return () => observer.disconnect();
  }, []);

  // A selection made elsewhere (the axis, the keyboard) brings its row into view.
  const geometryRef = useRef(geometry);
  geometryRef.current = geometry;
  useEffect(() => {
    const element = scroller.current;
    if (!element || selectedPosition < 0) return;
    const target = scrollToRow(geometryRef.current, element.scrollTop, selectedPosition);
    if (target !== element.scrollTop) element.scrollTop = target;
  }, [selectedPosition]);

  const shown = rowsWindow(geometry, scrollTop, OVERSCAN);
  const rows: ReactNode[] = [];
  for (let position = shown.first; position < shown.end; position++) {
    // Only the rows drawn are made from the columns.
    const event = timeline.events.get(matches ? matches[position]! : position)!;
    rows.push(
      <EventRow
        key={event.index}
        event={event}
        startMs={timeline.startMs}
        selected={event.index === selected}
        expanded={expanded}
        top={shown.top(position)}
        height={rowHeight}
        onSelect={onSelect}
      />,
    );
  }
  return (
    <div
      ref={scroller}
      className={styles.list}
      data-testid="timeline-event-list"
      data-count={count}
      role="listbox"
      aria-label="Timeline events"
      aria-activedescendant={selected !== null ? `timeline-event-${selected}` : undefined}
      tabIndex={0}
      onScroll={(event) => setScrollTop(event.currentTarget.scrollTop)}
    >
      {count === 0 ? <p className={styles.empty}>No events match.</p> : null}
      <div style={{ height: shown.spacerHeight, position: "relative" }}>{rows}</div>
    </div>
  );
}

const EventRow = memo(function EventRow({
  event,
  startMs,
  selected,
  expanded,
  top,
  height,
  onSelect,
}: {
  event: TimelineEvent;
  startMs: number;
  selected: boolean;
  expanded: boolean;
  top: number;
  height: number;
  onSelect: (index: number) => void;
}) {
  const duration = event.start !== null && event.end !== null ? formatDuration(event.end - event.start) : "";
  const statusClass = event.status === "error" || event.status === "denied" ? styles.badError : event.status === "ok" ? "" : styles.badWarn;
  return (
    <div
      id={`timeline-event-${event.index}`}
      className={`${styles.row} ${selected ? styles.rowSelected : ""}`}
      style={{ top, height }}
      data-testid="timeline-event"
      data-index={event.index}
      data-kind={event.kind}
      data-status={event.status}
      data-tool-name={event.toolName ?? undefined}
      role="option"
      aria-selected={selected}
      onClick={() => onSelect(event.index)}
    >
      <span className={styles.rowTime}>{formatOffset(event.at - startMs)}</span>
      <span className={`${styles.rowKind} ${statusClass}`}>
        {event.kind}
        {event.status !== "ok" ? ` · ${event.status}` : ""}
      </span>
      <span className={styles.rowMain}>
        <span className={styles.rowTitle} style={{ display: "block" }}>
          {event.agentId ? `[${event.agentId.slice(0, 8)}] ` : ""}
          {event.title}
        </span>
        <span className={styles.rowSummary} style={{ display: "block", whiteSpace: expanded ? "normal" : "nowrap", maxHeight: expanded ? "3em" : undefined }}>
          {event.summary}
        </span>
      </span>
      <span className={styles.rowDuration}>{duration}</span>
    </div>
  );
});
