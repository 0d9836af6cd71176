"use client";

import type { TimelineDetail, TimelineRow, TimelineSource } from "@cairn/core/timeline";
import { useCallback, useRef } from "react";
import { cairnErrorCode, errorMessage } from "@/lib/errors";
import { ExportHtmlButton } from "./export-html-button";
import { useTimelineClient } from "./timeline-client";
import { TimelineUpload } from "./timeline-upload";
import { TimelineView } from "./timeline-view";
import { useLiveTimeline, type FirstDetails } from "./use-live-timeline";
import styles from "./timeline.module.css";

/**
 * `/sessions/<id>/timeline`: the timeline the server built, following the session while it runs;
 * an event's details are fetched when it is selected, the search runs on the server. It is its own small page
 * (app-entry.tsx, not a Next page): its links to the IDE are plain links.
 */
export function TimelinePage({ sessionId }: { sessionId: string }) {
  const client = useTimelineClient();
  const live = useLiveTimeline(sessionId);
  // The first events' details came with the first look: opening one of them needs no request.
  const firstDetails = useRef<FirstDetails>(new Map());
  firstDetails.current = live.kind === "ready" ? live.firstDetails : new Map();
  const loadDetail = useCallback(
    async (event: TimelineRow, signal: AbortSignal) => {
      const known = firstDetails.current.get(event.id);
      if (known && known.status === event.status) return known.detail;
      // JSON typing makes `unknown` fields (a tool's input) optional; the server sent a TimelineDetail.
      return (await client.timeline.detail.query({ sessionId, eventId: event.id }, { signal })).detail as TimelineDetail;
    },
    [client, sessionId],
  );
  // The search answers for the whole timeline; while this page still shows the first part, its indices would
  // point at other rows: it waits for the whole timeline (which searches again).
  const showingPart = useRef(false);
  showingPart.current = live.kind === "ready" && !live.complete;
  const search = useCallback(
    async (query: string, signal: AbortSignal) => {
      const found = await client.timeline.search.query({ sessionId, query }, { signal });
      if (showingPart.current) await untilAborted(signal);
      return found.indices;
    },
    [client, sessionId],
  );
  // JSON typing makes `unknown` fields optional; buildTimeline checks every field of every line anyway.
  const loadSource = useCallback(async () => (await client.timeline.source.query({ sessionId })) as unknown as TimelineSource, [client, sessionId]);
  if (live.kind === "loading") {
    return (
      <div className="splash" data-testid="timeline-loading">
        Loading the timeline…
      </div>
    );
  }
  if (live.kind === "failed") {
    const missing = cairnErrorCode(live.error) === "session_not_found";
    return (
      <div className="splash" data-testid="timeline-error">
        <p>{missing ? `There is no session ${sessionId} in this workspace.` : `The timeline could not be loaded: ${errorMessage(live.error)}`}</p>
        <p>
          <a href="/">Back to the IDE</a> · <a href="/timeline/import">Open a Claude Code transcript</a>
        </p>
      </div>
    );
  }
  return (
    <div
      style={{ height: "100vh" }}
      className={styles.root}
      data-testid="timeline-page"
      data-version={live.timeline.version}
      data-complete={live.complete ? "true" : "false"}
    >
      <TimelineView
        timeline={live.timeline}
        loadDetail={loadDetail}
        search={search}
        actions={
          <>
            {live.complete ? null : (
              <span className={styles.loadingMore} data-testid="timeline-loading-more">
                Reading the rest of the session…
              </span>
            )}
            <ExportHtmlButton sessionId={sessionId} loadSource={loadSource} />
            <TimelineUpload compact />
            <a href="/">IDE</a>
          </>
        }
      />
    </div>
  );
}

/** Never resolves; rejects when `signal` aborts. */
function untilAborted(signal: AbortSignal): Promise<never> {
  return new Promise((_, reject) => {
    if (signal.aborted) reject(signal.reason);
    else signal.addEventListener("abort", () => reject(signal.reason), { once: true });
  });
}
