"use client";

import {
  appendPagesToTable,
  timelineTableOf,
  type CompactTimeline,
  type CompactTimelinePage,
  type TimelineDetail,
  type TimelineStatus,
  type TimelineTable,
} from "@cairn/core/timeline";
import { useEffect, useRef, useState } from "react";
import { cairnErrorCode } from "@/lib/errors";
import { takeEarlyView } from "./early-view";
import { QuietMoments } from "./quiet-moments";
import { useTimelineClient } from "./timeline-client";

/** How often the page asks whether the transcript grew (a cheap stat on the server when it did not). */
const FOLLOW_INTERVAL_MS = 1_500;
/** The longest a page of the rest waits for the browser to be idle before it is asked for anyway. */
const PAGE_IDLE_TIMEOUT_MS = 250;
/**
 * How often the view is drawn again while the rest comes in pages: each drawing walks the events held so far,
 * so drawing every page of a million events would keep the page busy; the pages between are only added.
 */
const SHOW_PAGES_EVERY_MS = 1_000;
/**
 * The rest of a large timeline is not what the reader looks at first: its pages wait until the first part has been
 * on screen this long and no key, click or wheel came for as long (at most `QUIET_WAIT_MAX_MS`), so the first
 * moves and the details they fetch are answered before a page is parsed and drawn in.
 */
const QUIET_MS = 400;
const QUIET_WAIT_MAX_MS = 3_000;

/** `complete` is false while the server is still reading a large transcript, or while the rest comes in pages. */
export type LiveTimeline =
  | { kind: "loading" }
  | { kind: "failed"; error: unknown }
  | { kind: "ready"; timeline: TimelineTable & { version: string }; complete: boolean; firstDetails: FirstDetails };

/**
 * The details the first look carried (the server's `detailsJson`): its first finished events', by id, with the
 * status they had. An event whose status is no longer that one (tombstoned since) has its details fetched.
 */
export type FirstDetails = ReadonlyMap<string, { status: TimelineStatus; detail: TimelineDetail }>;

type Rest = { version: string; from: number; total: number };

/**
 * The session's timeline as the server builds it (compact: no details), kept current while the page
 * is open: it asks for anything newer than the version it has, so a running session's new events
 * appear without a Refresh. A large timeline comes as its first events, shown at once, then the rest in
 * pages, each asked for when the browser is idle and added as it comes, so the page answers keys and
 * clicks meanwhile. A timeline already shown whole stays on screen while a newer one comes in pages.
 */
export function useLiveTimeline(sessionId: string): LiveTimeline {
  const client = useTimelineClient();
  const [state, setState] = useState<LiveTimeline>({ kind: "loading" });
  const quietRef = useRef<QuietMoments | null>(null);
  // The quiet moment the rest waits for counts from when the first part is on screen (this effect runs once it is
  // committed), not from when it was handed to React: on a busy machine its drawing alone can take longer than that.
  const firstShown = state.kind === "ready";
  useEffect(() => {
    if (firstShown) quietRef.current?.touch();
  }, [firstShown]);
  useEffect(() => {
    const controller = new AbortController();
    const { signal } = controller;
    let version: string | undefined;
    let shownWhole = false;
    let shown = false;
    let timer: ReturnType<typeof setTimeout> | undefined;
    let firstDetails: FirstDetails = new Map();
    const quiet = new QuietMoments(QUIET_MS, QUIET_WAIT_MAX_MS);
    quietRef.current = quiet;
    setState({ kind: "loading" });
    /** The rest of a large timeline, page by page after `first`; false when it changed meanwhile (start over). */
    const loadRest = async (first: TimelineTable & { version: string }, rest: Rest): Promise<boolean> => {
      let rows: TimelineTable = first;
      // Pages parsed since the last drawing: added all at once when the view is drawn again.
      let held: CompactTimelinePage[] = [];
      let shownAt = performance.now();
      for (let from = rest.from; from < rest.total; ) {
        await quiet.moment(signal);
        await browserIdle(signal);
        const answer = await client.timeline.page.query({ sessionId, version: rest.version, from }, { signal });
        if (signal.aborted) return true;
        if (answer.stale) return false;
        const page = JSON.parse(answer.pageJson) as CompactTimelinePage;
        held.push(page);
        from = page.to;
        if (page.to <= page.from) break;
        // A timeline shown whole stays until the newer one is whole too.
        if (!shownWhole && from < rest.total && performance.now() - shownAt >= SHOW_PAGES_EVERY_MS) {
          rows = appendPagesToTable(rows, held);
          held = [];
          show({ ...rows, version: `${rest.version}@${from}` }, false);
          shownAt = performance.now();
        }
      }
      rows = appendPagesToTable(rows, held);
      version = rest.version;
      shownWhole = true;
      show({ ...rows, version: rest.version }, true);
      return true;
    };
    const show = (timeline: TimelineTable & { version: string }, complete: boolean) => {
      // The first drawing is what the reader waits for: the rest waits until it has been on screen a moment.
      if (!shown) quiet.touch();
      shown = true;
      setState({ kind: "ready", timeline, complete, firstDetails });
    };
    const poll = async (): Promise<void> => {
      let complete = true;
      try {
        let started = performance.now();
        // The first look: the answer to the request the page's inline script sent while the page loaded, if any.
        const early = shown ? undefined : await takeEarlyView(sessionId);
        if (early) started = early.sent;
        const answer = early?.answer ?? (await client.timeline.view.query({ sessionId, ...(version ? { knownVersion: version } : {}) }, { signal }));
        if (signal.aborted) return;
        if (answer.changed) {
          const expanding = performance.now();
          const fetched = early?.received ?? expanding;
          // The server sends a CompactTimeline as JSON text (serialized once per version there); its events stay
          // columns here (rows are made only for what is drawn), so a million of them are few objects to the GC.
          const timeline = timelineTableOf(JSON.parse(answer.timelineJson) as CompactTimeline);
          if (answer.detailsJson !== undefined) firstDetails = firstDetailsOf(answer.detailsJson);
          if (version === undefined) {
            performance.measure("timeline-fetch", { start: started, end: fetched });
            performance.measure("timeline-expand", { start: expanding, end: performance.now() });
          }
          if (answer.rest) {
            if (!shownWhole) show(timeline, false);
            // Changed while its pages came: look again at once, starting over from its first part.
            if (!(await loadRest(timeline, answer.rest))) {
              version = undefined;
              complete = false;
            }
            if (signal.aborted) return;
          } else {
            version = timeline.version;
            complete = answer.complete;
            shownWhole = complete;
            show(timeline, complete);
          }
        }
      } catch (error) {
        if (signal.aborted) return;
        // Before anything is shown an error is the answer; later a failed poll is retried.
        if (!shown) {
          setState({ kind: "failed", error });
          if (cairnErrorCode(error) === "session_not_found") return;
        }
      }
      timer = setTimeout(() => void poll(), complete ? FOLLOW_INTERVAL_MS : 0);
    };
    void poll();
    return () => {
      controller.abort();
      clearTimeout(timer);
      quiet.stop();
      if (quietRef.current === quiet) quietRef.current = null;
    };
  }, [client, sessionId]);
  return state;
}

/** Resolves when the browser has an idle moment (or after a short while regardless); at once without `requestIdleCallback`. */
function browserIdle(signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal.aborted || typeof requestIdleCallback !== "function") return resolve();
    const handle = requestIdleCallback(() => resolve(), { timeout: PAGE_IDLE_TIMEOUT_MS });
    signal.addEventListener(
      "abort",
      () => {
        cancelIdleCallback(handle);
        resolve();
      },
      { once: true },
    );
  });
}

/** The first look's `detailsJson` as a map; empty when it cannot be read (each detail is then fetched). */
function firstDetailsOf(json: string): FirstDetails {
  try {
    return new Map(Object.entries(JSON.parse(json) as Record<string, { status: TimelineStatus; detail: TimelineDetail }>));
  } catch {
    return new Map();
  }
}
