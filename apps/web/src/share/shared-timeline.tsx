"use client";

import type { TimelineSource } from "@cairn/core/timeline";
import { useEffect, useState } from "react";
import { errorMessage } from "@/lib/errors";
import type { ShareViewClient } from "@/trpc/share-client";
import { SourceTimelineView } from "../timeline/timeline-view";
import timelineStyles from "../timeline/timeline.module.css";

type Loaded = { kind: "loading" } | { kind: "failed"; message: string } | { kind: "ready"; source: TimelineSource };

/** The shared part of the session on the timeline, from the share router (redacted like the transcript). */
export function SharedTimeline({ token, client }: { token: string; client: ShareViewClient }) {
  const [loaded, setLoaded] = useState<Loaded>({ kind: "loading" });
  useEffect(() => {
    const controller = new AbortController();
    setLoaded({ kind: "loading" });
    client.view.timelineSource
      .query({ token }, { signal: controller.signal })
      // JSON typing makes `unknown` fields optional; buildTimeline checks every field of every line itself.
      .then((source) => setLoaded({ kind: "ready", source: source as unknown as TimelineSource }))
      .catch((error: unknown) => {
        if (!controller.signal.aborted) setLoaded({ kind: "failed", message: errorMessage(error) });
      });
    return () => controller.abort();
  }, [client, token]);

  switch (loaded.kind) {
    case "loading":
      return <p className="share-placeholder">Loading the timeline…</p>;
    case "failed":
      return (
        <p className="form-error" role="alert">
          The timeline could not be loaded: {loaded.message}
        </p>
      );
    case "ready":
      return (
        <div className={`share-timeline-frame ${timelineStyles.root ?? ""}`}>
          <SourceTimelineView source={loaded.source} />
        </div>
      );
  }
}
