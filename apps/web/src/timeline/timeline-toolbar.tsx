"use client";

import { timelineEventKinds, timelineStatuses, type TimelineEventKind } from "@cairn/core/timeline";
import type { RefObject } from "react";
import type { TimelineFilters } from "./filter";
import styles from "./timeline.module.css";

export type TimelineToolbarProps = {
  filters: TimelineFilters;
  onFilters: (filters: TimelineFilters) => void;
  toolNames: readonly string[];
  searchRef: RefObject<HTMLInputElement | null>;
  onSearchKey: (key: string) => void;
  onFit: () => void;
  onZoom: (factor: number) => void;
  expanded: boolean;
  onExpanded: (expanded: boolean) => void;
};

/** Search, filters by kind, tool and status, zoom and expand controls. */
export function TimelineToolbar({ filters, onFilters, toolNames, searchRef, onSearchKey, onFit, onZoom, expanded, onExpanded }: TimelineToolbarProps) {
  const toggleKind = (kind: TimelineEventKind) => {
    const kinds = new Set(filters.kinds);
    if (kinds.has(kind)) kinds.delete(kind);
    else kinds.add(kind);
    onFilters({ ...filters, kinds });
  };
  return (
    <div className={styles.toolbar}>
      <input
        ref={searchRef}
        className={styles.search}
        type="search"
        placeholder="Search events  ( / )"
        aria-label="Search events"
        data-testid="timeline-search"
        value={filters.query}
        onChange={(event) => onFilters({ ...filters, query: event.target.value })}
        onKeyDown={(event) => {
          if (event.key === "Escape" || event.key === "ArrowDown" || event.key === "Enter") {
            event.preventDefault();
            onSearchKey(event.key);
          }
        }}
      />
      <div className={styles.kinds} role="group" aria-label="Event kinds">
        {timelineEventKinds.map((kind) => (
          <button
            key={kind}
            type="button"
            className={`${styles.kind} ${filters.kinds.has(kind) ? styles.kindOn : ""}`}
            aria-pressed={filters.kinds.has(kind)}
            data-testid="timeline-filter-kind"
            data-kind={kind}
            onClick={() => toggleKind(kind)}
          >
            {kind}
          </button>
        ))}
      </div>
      <select
        aria-label="Tool"
        data-testid="timeline-filter-tool"
        value={filters.tool ?? ""}
        onChange={(event) => onFilters({ ...filters, tool: event.target.value || null })}
      >
        <option value="">All tools</option>
        {toolNames.map((name) => (
          <option key={name} value={name}>
            {name}
          </option>
        ))}
      </select>
      <select
        aria-label="Status"
        data-testid="timeline-filter-status"
        value={filters.status ?? ""}
        onChange={(event) => onFilters({ ...filters, status: (event.target.value || null) as TimelineFilters["status"] })}
      >
        <option value="">Any status</option>
        <option value="problems">Any problem</option>
        {timelineStatuses.map((status) => (
          <option key={status} value={status}>
            {status}
          </option>
        ))}
      </select>
      <span className={styles.spacer} />
      <button type="button" onClick={onFit} data-testid="timeline-fit" title="Show the whole session">
        Fit
      </button>
      <button type="button" onClick={() => onZoom(0.5)} data-testid="timeline-zoom-in" aria-label="Zoom in">
        +
      </button>
      <button type="button" onClick={() => onZoom(2)} data-testid="timeline-zoom-out" aria-label="Zoom out">
        −
      </button>
      <button type="button" onClick={() => onExpanded(!expanded)} data-testid={expanded ? "timeline-collapse-all" : "timeline-expand-all"}>
        {expanded ? "Collapse all" : "Expand all"}
      </button>
    </div>
  );
}
