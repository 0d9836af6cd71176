"use client";

import type { ShareViewClient } from "@/trpc/share-client";

/**
 * The shared session's timeline. The timeline view itself is built beside this page; until it is here,
 * the tab says so plainly.
 */
export function SharedTimeline(_props: { token: string; client: ShareViewClient }) {
  return (
    <p className="share-placeholder" data-testid="share-timeline-placeholder">
      The timeline of a shared session is not available in this build yet. The conversation tab shows the whole transcript.
    </p>
  );
}
