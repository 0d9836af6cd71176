"use client";

import Link from "next/link";
import { useTRPCClient } from "@/trpc/client";
import { TimelineClientProvider } from "./timeline-client";
import { TimelineUpload } from "./timeline-upload";

/** `/timeline/import`: open a Claude Code transcript in the timeline viewer. */
export function TimelineImportPage() {
  const client = useTRPCClient();
  return (
    <div className="splash" data-testid="timeline-import">
      <h1 style={{ fontSize: 18, margin: 0 }}>Open a Claude Code transcript</h1>
      <p className="muted" style={{ maxWidth: "36rem" }}>
        Claude Code keeps each session as a <code>.jsonl</code> file under <code>~/.claude/projects/</code>. Opening one imports it as a session of this
        workspace and shows its timeline. Claude Code records no durations, so its events are shown at the times their lines were written.
      </p>
      <div>
        <TimelineClientProvider client={client}>
          <TimelineUpload />
        </TimelineClientProvider>
      </div>
      <p>
        <Link href="/">Back to the IDE</Link>
      </p>
    </div>
  );
}
