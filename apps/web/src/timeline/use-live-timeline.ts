"use client";

import { expandCompactTimeline, type CompactTimeline, type TimelineRows } from "@cairn/core/timeline";
import { useEffect, useState } from "react";
import { cairnErrorCode } from "@/lib/errors";
import { useTRPCClient } from "@/trpc/client";

/** How often the page asks whether the transcript grew (a cheap stat on the server when it did not). */
const FOLLOW_INTERVAL_MS = 1_500;

/** `complete` is false while the server is still reading a large transcript: the first part is shown meanwhile. */
export type LiveTimeline =
  | { kind: "loading" }
  | { kind: "failed"; error: unknown }
  | { kind: "ready"; timeline: TimelineRows & { version: string }; complete: boolean };

/**
 * The session's timeline as the server builds it (compact: no details), kept current while the page
 * is open: it asks for anything newer than the version it has, so a running session's new events
 * appear without a Refresh. A large transcript comes first in part; the whole is asked for at once.
 */
export function useLiveTimeline(sessionId: string): LiveTimeline {
  const client = useTRPCClient();
  const [state, setState] = useState<LiveTimeline>({ kind: "loading" });
  useEffect(() => {
    const controller = new AbortController();
    const { signal } = controller;
    let version: string | undefined;
    let timer: ReturnType<typeof setTimeout> | undefined;
    setState({ kind: "loading" });
    const poll = async (): Promise<void> => {
      let complete = true;
      try {
        const started = performance.now();
        const answer = await client.timeline.view.query({ sessionId, ...(version ? { knownVersion: version } : {}) }, { signal });
        if (signal.aborted) return;
        if (answer.changed) {
          const fetched = performance.now();
          // The server sends a CompactTimeline as JSON text (serialized once per version there).
          const timeline = expandCompactTimeline(JSON.parse(answer.timelineJson) as CompactTimeline);
          if (version === undefined) {
            performance.measure("timeline-fetch", { start: started, end: fetched });
            performance.measure("timeline-expand", { start: fetched, end: performance.now() });
          }
          version = timeline.version;
          complete = answer.complete;
          setState({ kind: "ready", timeline, complete });
        }
      } catch (error) {
        if (signal.aborted) return;
        // Before anything is shown an error is the answer; later a failed poll is retried.
        if (version === undefined) {
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
    };
  }, [client, sessionId]);
  return state;
}
