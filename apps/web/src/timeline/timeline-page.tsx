"use client";

import type { TimelineDetail, TimelineRow, TimelineSource } from "@cairn/core/timeline";
import Link from "next/link";
import { useCallback } from "react";
import { cairnErrorCode, errorMessage } from "@/lib/errors";
import { useTRPCClient } from "@/trpc/client";
import { ExportHtmlButton } from "./export-html-button";
import { TimelineUpload } from "./timeline-upload";
import { TimelineView } from "./timeline-view";
import { useLiveTimeline } from "./use-live-timeline";
import styles from "./timeline.module.css";

/**
 * `/sessions/<id>/timeline`: the timeline the server built, following the session while it runs;
 * an event's details are fetched when it is selected, the search runs on the server.
 */
export function TimelinePage({ sessionId }: { sessionId: string }) {
  const client = useTRPCClient();
  const live = useLiveTimeline(sessionId);
  const loadDetail = useCallback(
    // JSON typing makes `unknown` fields (a tool's input) optional; the server sent a TimelineDetail.
    async (event: TimelineRow, signal: AbortSignal) =>
      (await client.timeline.detail.query({ sessionId, eventId: event.id }, { signal })).detail as TimelineDetail,
    [client, sessionId],
  );
  const search = useCallback(
    async (query: string, signal: AbortSignal) => (await client.timeline.search.query({ sessionId, query }, { signal })).indices,
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
          <Link href="/">Back to the IDE</Link> · <Link href="/timeline/import">Open a Claude Code transcript</Link>
        </p>
      </div>
    );
  }
  return (
    <div style={{ height: "100vh" }} className={styles.root} data-testid="timeline-page" data-version={live.timeline.version}>
      <TimelineView
        timeline={live.timeline}
        loadDetail={loadDetail}
        search={search}
        actions={
          <>
            <ExportHtmlButton sessionId={sessionId} loadSource={loadSource} />
            <TimelineUpload compact />
            <Link href="/">IDE</Link>
          </>
        }
      />
    </div>
  );
}
