"use client";

import type { TimelineRow as TimelineEvent, TimelineRows as Timeline } from "@cairn/core/timeline";
import { useVirtualizer } from "@tanstack/react-virtual";
import { useEffect, useRef } from "react";
import { formatDuration, formatOffset } from "./format";
import styles from "./timeline.module.css";

const ROW_HEIGHT = 40;
const EXPANDED_HEIGHT = 78;

export type TimelineListProps = {
  timeline: Timeline;
  /** Event indices shown, in time order. */
  matches: readonly number[];
  /** Position in `matches` of the selected event, or -1. */
  selectedPosition: number;
  selected: number | null;
  expanded: boolean;
  onSelect: (index: number) => void;
};

/** The events as a virtualised list: only the rows in view exist, whatever the session's size. */
export function TimelineList({ timeline, matches, selectedPosition, selected, expanded, onSelect }: TimelineListProps) {
  const scroller = useRef<HTMLDivElement>(null);
  const virtualizer = useVirtualizer({
    count: matches.length,
    getScrollElement: () => scroller.current,
    estimateSize: () => (expanded ? EXPANDED_HEIGHT : ROW_HEIGHT),
    overscan: 12,
  });

  // biome-ignore lint/correctness/useExhaustiveDependencies: row heights change with `expanded`; measure again then.
  useEffect(() => {
    virtualizer.measure();
  }, [expanded, virtualizer]);

  // A selection made elsewhere (the axis, the keyboard) brings its row into view.
  useEffect(() => {
    if (selectedPosition >= 0) virtualizer.scrollToIndex(selectedPosition, { align: "auto" });
  }, [selectedPosition, virtualizer]);

  const rowHeight = expanded ? EXPANDED_HEIGHT : ROW_HEIGHT;
  return (
    <div
      ref={scroller}
      className={styles.list}
      data-testid="timeline-event-list"
      data-count={matches.length}
      role="listbox"
      aria-label="Timeline events"
      aria-activedescendant={selected !== null ? `timeline-event-${selected}` : undefined}
      tabIndex={0}
    >
      {matches.length === 0 ? <p className={styles.empty}>No events match.</p> : null}
      <div style={{ height: virtualizer.getTotalSize(), position: "relative" }}>
        {virtualizer.getVirtualItems().map((item) => {
          const event = timeline.events[matches[item.index]!]!;
          return (
            <EventRow
              key={event.index}
              event={event}
              startMs={timeline.startMs}
              selected={event.index === selected}
              expanded={expanded}
              top={item.start}
              height={rowHeight}
              onSelect={onSelect}
            />
          );
        })}
      </div>
    </div>
  );
}

function EventRow({
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
}
