"use client";

import {
  buildTimeline,
  timelineQueryMatcher,
  timelineTableOfRows,
  type TimelineDetail,
  type TimelineRow,
  type TimelineSource,
  type TimelineTable,
} from "@cairn/core/timeline";
import { useCallback, useDeferredValue, useEffect, useMemo, useRef, useState, type KeyboardEvent, type ReactNode } from "react";
import { filterEvents, isFiltered, noFilters, positionsOf, type TimelineFilters } from "./filter";
import { formatCost, formatCount, formatDuration, formatTokens } from "./format";
import { selectedIndexIn, type Selection } from "./selection";
import { fitViewport, revealTime, zoomViewport, type Viewport } from "./viewport";
import { TimelineAxis } from "./timeline-axis";
import { TimelineDetailPanel } from "./timeline-detail";
import { TimelineList } from "./timeline-list";
import { TimelineToolbar } from "./timeline-toolbar";
import styles from "./timeline.module.css";

export type TimelineViewProps = {
  /** The lanes and events (as columns); it may grow while the view is open (a live session), selection and zoom stay. */
  timeline: TimelineTable;
  /** One event's details: at once when the timeline carries them, fetched when it was sent compact. */
  loadDetail: (event: TimelineRow, signal: AbortSignal) => TimelineDetail | Promise<TimelineDetail>;
  /** The text search, done where the search text is (the server, the built timeline); without it, kind, title and summary are searched here. */
  search?: (query: string, signal: AbortSignal) => Promise<number[]>;
  /** Extra controls in the header (export, upload, links): the page decides, the view stays embeddable. */
  actions?: ReactNode;
};

/** The view over a raw source (the share page): built here, details at hand. */
export function SourceTimelineView({ source, actions }: { source: TimelineSource; actions?: ReactNode }) {
  const built = useMemo(() => {
    // User Timing: how long the build took shows in the browser's performance panel (and the benchmark).
    const started = performance.now();
    const built = buildTimeline(source);
    performance.measure("timeline-build", { start: started, end: performance.now() });
    return built;
  }, [source]);
  const timeline = useMemo(() => timelineTableOfRows(built), [built]);
  const loadDetail = useCallback((event: TimelineRow) => built.events[event.index]!.detail, [built]);
  // The built events carry their search texts (inputs and outputs too): the search runs on them.
  const search = useCallback(
    async (query: string) => {
      const matcher = timelineQueryMatcher(query);
      return built.events.filter((event) => !matcher || matcher(event.searchText)).map((event) => event.index);
    },
    [built],
  );
  return <TimelineView timeline={timeline} loadDetail={loadDetail} search={search} actions={actions} />;
}

type SearchHits = { query: string; timeline: TimelineTable; hits: Uint8Array };
type LoadedDetail = { eventId: string; detail: TimelineDetail | null; problem: string | null };

/**
 * A session's timeline: lanes on a zoomable time axis, a virtualised event list kept in step with
 * it, filters, search, keyboard navigation and a detail panel. The IDE page feeds it the compact
 * timeline the server built, the exported HTML file the one built at export; the share page builds one from a source.
 */
export function TimelineView({ timeline, loadDetail, search, actions }: TimelineViewProps) {
  const [viewport, setViewport] = useState<Viewport>(() => fitViewport(timeline));
  const [filters, setFilters] = useState<TimelineFilters>(noFilters);
  const [selection, setSelection] = useState<Selection | null>(null);
  const [detailOpen, setDetailOpen] = useState(true);
  const [expanded, setExpanded] = useState(false);
  const searchRef = useRef<HTMLInputElement>(null);
  const listFocus = useRef<HTMLDivElement>(null);

  // A new session starts fitted and unselected; the same session grown keeps its selection (by id) and zoom.
  const shown = useRef(timeline);
  useEffect(() => {
    const before = shown.current;
    shown.current = timeline;
    if (before === timeline) return;
    if (before.sessionId !== timeline.sessionId) {
      setViewport(fitViewport(timeline));
      setSelection(null);
      return;
    }
    setViewport((current) => (current.t0 <= before.startMs && current.t1 >= before.endMs ? fitViewport(timeline) : current));
  }, [timeline]);
  // Found again in each timeline (at once when it only grew): a selection made just as a page of events lands stays.
  const selected = useMemo(() => selectedIndexIn(timeline.events, selection), [timeline, selection]);

  // Typing stays responsive: the list and axis catch up with the filters a frame later.
  const deferredFilters = useDeferredValue(filters);
  const filtered = isFiltered(deferredFilters);
  const query = deferredFilters.query.trim();
  const [searchHits, setSearchHits] = useState<SearchHits | null>(null);
  useEffect(() => {
    if (!search || query === "") return;
    const controller = new AbortController();
    search(query, controller.signal)
      .then((indices) => {
        const hits = new Uint8Array(timeline.events.length);
        for (const index of indices) hits[index] = 1;
        if (!controller.signal.aborted) setSearchHits({ query, timeline, hits });
      })
      .catch(() => undefined);
    return () => controller.abort();
  }, [search, query, timeline]);
  // With a server search, the text filter waits for its answer for this query and this timeline.
  const hits = search && query !== "" ? (searchHits && searchHits.query === query && searchHits.timeline === timeline ? searchHits.hits : null) : null;
  const searching = Boolean(search) && query !== "" && hits === null;
  // Unfiltered, every event is listed in order: no per-event array is made (a page of a large timeline re-renders).
  const matches = useMemo(
    () => (searching ? [] : filtered ? filterEvents(timeline.events, deferredFilters, hits) : null),
    [timeline, deferredFilters, filtered, hits, searching],
  );
  const matchCount = matches ? matches.length : timeline.events.length;
  const positions = useMemo(() => (matches ? positionsOf(matches, timeline.events.length) : null), [matches, timeline]);
  const matchMask = useMemo(() => {
    if (!matches) return null;
    const mask = new Uint8Array(timeline.events.length);
    for (const index of matches) mask[index] = 1;
    return mask;
  }, [matches, timeline]);

  const select = useCallback(
    (index: number) => {
      const { events } = timeline;
      if (!(index >= 0 && index < events.length)) return;
      const at = events.at(index);
      const end = events.end(index) ?? at;
      setSelection({ index, id: events.id(index) });
      setDetailOpen(true);
      setViewport((current) => revealTime(current, at, end));
    },
    [timeline],
  );

  const selectedPosition = selected === null ? -1 : positions ? (positions[selected] ?? -1) : selected < timeline.events.length ? selected : -1;
  const move = (step: number) => {
    if (matchCount === 0) return;
    const next = selectedPosition < 0 ? (step > 0 ? 0 : matchCount - 1) : Math.min(matchCount - 1, Math.max(0, selectedPosition + step));
    select(matches ? matches[next]! : next);
  };

  const onKeyDown = (event: KeyboardEvent<HTMLElement> | globalThis.KeyboardEvent) => {
    const target = event.target as HTMLElement;
    const typing = target.tagName === "INPUT" || target.tagName === "SELECT" || target.tagName === "TEXTAREA" || target.isContentEditable;
    if (typing || event.altKey || event.ctrlKey || event.metaKey) return;
    switch (event.key) {
      case "/":
        event.preventDefault();
        searchRef.current?.focus();
        searchRef.current?.select();
        return;
      case "ArrowDown":
      case "j":
        event.preventDefault();
        move(1);
        return;
      case "ArrowUp":
      case "k":
        event.preventDefault();
        move(-1);
        return;
      case "PageDown":
        event.preventDefault();
        move(20);
        return;
      case "PageUp":
        event.preventDefault();
        move(-20);
        return;
      case "Enter":
        event.preventDefault();
        if (selected === null) move(1);
        else setDetailOpen(true);
        return;
      case "Escape":
        event.preventDefault();
        if (detailOpen && selected !== null) setDetailOpen(false);
        else setSelection(null);
        return;
      default:
    }
  };

  // Keys pressed with nothing focused (just after the page loads) reach the body, not the view.
  const keyHandler = useRef(onKeyDown);
  keyHandler.current = onKeyDown;
  useEffect(() => {
    const onDocumentKey = (event: globalThis.KeyboardEvent) => {
      if (event.target === document.body || event.target === document.documentElement) keyHandler.current(event);
    };
    document.addEventListener("keydown", onDocumentKey);
    return () => document.removeEventListener("keydown", onDocumentKey);
  }, []);

  const onSearchKey = (key: string) => {
    if (key === "Escape" && filters.query !== "") {
      setFilters({ ...filters, query: "" });
      return;
    }
    // Leave the search for the list: arrows and Enter work on the results from there.
    listFocus.current?.querySelector<HTMLElement>("[data-testid=timeline-event-list]")?.focus();
    if (key === "ArrowDown" || key === "Enter") move(selectedPosition < 0 ? 1 : 0);
  };

  const selectedEvent = selected === null ? null : (timeline.events.get(selected) ?? null);
  const [loaded, setLoaded] = useState<LoadedDetail | null>(null);
  useEffect(() => {
    if (!selectedEvent) return;
    const controller = new AbortController();
    const eventId = selectedEvent.id;
    Promise.resolve()
      .then(() => loadDetail(selectedEvent, controller.signal))
      .then(
        (detail) => {
          if (!controller.signal.aborted) setLoaded({ eventId, detail, problem: null });
        },
        (error: unknown) => {
          if (!controller.signal.aborted) setLoaded({ eventId, detail: null, problem: error instanceof Error ? error.message : String(error) });
        },
      );
    return () => controller.abort();
  }, [selectedEvent, loadDetail]);
  const detailOfSelected = selectedEvent && loaded?.eventId === selectedEvent.id ? loaded : null;
  const { summary } = timeline;
  const span = timeline.endMs - timeline.startMs;
  return (
    <div className={styles.root} data-testid="timeline" data-timing-known={timeline.timingKnown} data-events={timeline.events.length} onKeyDown={onKeyDown}>
      <header className={styles.header}>
        <h1 className={styles.title} data-testid="timeline-title">
          {timeline.title ?? firstPrompt(timeline) ?? "Untitled session"}
        </h1>
        <div className={styles.stats} data-testid="timeline-summary">
          <span>{formatCount(timeline.events.length)} events</span>
          <span>{summary.modelCalls} model calls</span>
          <span>{summary.toolCalls} tool calls</span>
          {summary.errors > 0 ? <span className={styles.badError}>{summary.errors} errors</span> : null}
          {summary.compactions > 0 ? <span>{summary.compactions} compactions</span> : null}
          <span>{timeline.timingKnown ? formatDuration(span) : `${formatDuration(span)} between first and last line`}</span>
          <span>
            tokens in {formatTokens(summary.tokens.input)} · out {formatTokens(summary.tokens.output)} · cache r {formatTokens(summary.tokens.cacheRead)} w{" "}
            {formatTokens(summary.tokens.cacheWrite)}
          </span>
          <span title="An estimate from public per-token prices">{formatCost(summary.costUsd)}</span>
        </div>
        <div className={styles.actions}>{actions}</div>
      </header>
      {!timeline.timingKnown && timeline.events.length > 0 ? (
        <div className={styles.notice} data-testid="timeline-no-durations" role="note">
          {timeline.imported ? "Imported from Claude Code, which records no durations: " : "This transcript records no durations: "}
          events are drawn as points at the time their lines were written. No durations, waits or overlaps are invented.
        </div>
      ) : null}
      {timeline.damage && (timeline.damage.malformedLines > 0 || timeline.damage.tornTail) ? (
        <div className={`${styles.notice} ${styles.warning}`} data-testid="timeline-damage" role="note">
          {timeline.damage.malformedLines > 0 ? `${timeline.damage.malformedLines} damaged line(s) skipped. ` : ""}
          {timeline.damage.tornTail ? "The last line was cut short (a crash while writing) and was skipped." : ""}
        </div>
      ) : null}
      <TimelineToolbar
        filters={filters}
        onFilters={setFilters}
        toolNames={summary.toolNames}
        searchRef={searchRef}
        onSearchKey={onSearchKey}
        onFit={() => setViewport(fitViewport(timeline))}
        onZoom={(factor) => setViewport((current) => zoomViewport(current, factor))}
        expanded={expanded}
        onExpanded={setExpanded}
      />
      <div className={styles.body}>
        <div className={styles.axisPane}>
          <TimelineAxis timeline={timeline} viewport={viewport} onViewportChange={setViewport} selected={selected} onSelect={select} matchMask={matchMask} />
        </div>
        <div className={styles.listPane} ref={listFocus}>
          <div className={styles.listHead}>
            <span data-testid="timeline-match-count">
              {searching
                ? "Searching…"
                : matches
                  ? `${formatCount(matches.length)} of ${formatCount(timeline.events.length)} events`
                  : `${formatCount(timeline.events.length)} events`}
            </span>
            <span>↑/↓ move · Enter details · Esc close · / search</span>
          </div>
          <TimelineList timeline={timeline} matches={matches} selectedPosition={selectedPosition} selected={selected} expanded={expanded} onSelect={select} />
        </div>
        <div className={styles.detailPane}>
          {detailOpen ? (
            <TimelineDetailPanel
              timeline={timeline}
              event={selectedEvent}
              detail={detailOfSelected?.detail ?? null}
              problem={detailOfSelected?.problem ?? null}
              onClose={() => setDetailOpen(false)}
            />
          ) : (
            <TimelineDetailPanel timeline={timeline} event={null} detail={null} problem={null} onClose={() => undefined} />
          )}
        </div>
      </div>
    </div>
  );
}

/** A session without a title is named by what was first asked. */
function firstPrompt(timeline: TimelineTable): string | null {
  const { events } = timeline;
  for (let index = 0; index < events.length; index++) {
    if (events.kind(index) === "prompt" && events.agentId(index) === null) return events.summary(index).slice(0, 80);
  }
  return null;
}
