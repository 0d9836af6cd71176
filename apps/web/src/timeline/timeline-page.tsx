"use client";

import type { TimelineSource } from "@cairn/core/timeline";
import { useQuery } from "@tanstack/react-query";
import Link from "next/link";
import { cairnErrorCode, errorMessage } from "@/lib/errors";
import { useTRPC } from "@/trpc/client";
import { ExportHtmlButton } from "./export-html-button";
import { TimelineUpload } from "./timeline-upload";
import { TimelineView } from "./timeline-view";
import styles from "./timeline.module.css";

/** `/sessions/<id>/timeline`: the session's timeline, fetched once (refresh to see a running session's later events). */
export function TimelinePage({ sessionId }: { sessionId: string }) {
  const trpc = useTRPC();
  const source = useQuery({ ...trpc.timeline.source.queryOptions({ sessionId }), staleTime: Number.POSITIVE_INFINITY, retry: false });
  if (source.isPending) {
    return (
      <div className="splash" data-testid="timeline-loading">
        Loading the timeline…
      </div>
    );
  }
  if (source.isError) {
    const missing = cairnErrorCode(source.error) === "session_not_found";
    return (
      <div className="splash" data-testid="timeline-error">
        <p>{missing ? `There is no session ${sessionId} in this workspace.` : `The timeline could not be loaded: ${errorMessage(source.error)}`}</p>
        <p>
          <Link href="/">Back to the IDE</Link> · <Link href="/timeline/import">Open a Claude Code transcript</Link>
        </p>
      </div>
    );
  }
  // JSON typing makes `unknown` fields optional; buildTimeline checks every field of every line anyway.
  const data = source.data as unknown as TimelineSource;
  return (
    <div style={{ height: "100vh" }} className={styles.root}>
      <TimelineView
        source={data}
        actions={
          <>
            <button type="button" onClick={() => void source.refetch()} data-testid="timeline-refresh" disabled={source.isFetching}>
              {source.isFetching ? "Refreshing…" : "Refresh"}
            </button>
            <ExportHtmlButton source={data} />
            <TimelineUpload compact />
            <Link href="/">IDE</Link>
          </>
        }
      />
    </div>
  );
}
