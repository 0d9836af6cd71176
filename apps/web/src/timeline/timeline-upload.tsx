"use client";

import { useRef, useState } from "react";
import { errorMessage } from "@/lib/errors";
import { useTimelineClient } from "./timeline-client";

/** The server refuses more (JSON escaping included); checked here first so a huge file is not sent for nothing. */
const MAX_UPLOAD_BYTES = 50 * 1024 * 1024;

/**
 * Opens a Claude Code `.jsonl` transcript: imports it as a new session of this workspace and goes
 * to its timeline. Broken lines do not stop the import; how many there were is said on the way. The timeline is
 * its own page (not one of the IDE's Next pages): it is opened by a plain navigation.
 */
export function TimelineUpload({ compact = false }: { compact?: boolean }) {
  const client = useTimelineClient();
  const input = useRef<HTMLInputElement>(null);
  const [problem, setProblem] = useState<string | null>(null);
  const [note, setNote] = useState<string | null>(null);
  const [importing, setImporting] = useState(false);

  const onFile = async (file: File | undefined) => {
    setProblem(null);
    setNote(null);
    if (!file) return;
    if (file.size > MAX_UPLOAD_BYTES) {
      setProblem(`${file.name} is ${(file.size / 1024 / 1024).toFixed(1)} MB; at most 50 MB can be opened.`);
      return;
    }
    setImporting(true);
    try {
      const jsonl = await file.text();
      const result = await client.timeline.importTranscript.mutate({ jsonl, name: file.name });
      const { report } = result;
      if (report.malformedLines > 0 || report.tornTail)
        setNote(`${report.malformedLines} broken line(s)${report.tornTail ? " and a cut-off last line" : ""} were skipped.`);
      window.location.assign(
        `/sessions/${encodeURIComponent(result.sessionId)}/timeline${report.malformedLines > 0 || report.tornTail ? `?skipped=${report.malformedLines + (report.tornTail ? 1 : 0)}` : ""}`,
      );
    } catch (error) {
      setProblem(`Could not open ${file.name}: ${errorMessage(error)}`);
    } finally {
      setImporting(false);
      if (input.current) input.current.value = "";
    }
  };

  return (
    <span data-testid="timeline-upload" style={{ display: "inline-flex", gap: "0.4rem", alignItems: "center" }}>
      <label style={{ cursor: "pointer" }}>
        <span
          role="button"
          tabIndex={0}
          style={{ border: "1px solid var(--border, #2c313b)", borderRadius: 6, padding: "0.15rem 0.55rem", background: "var(--bg-hover, #252a33)" }}
          onKeyDown={(event) => (event.key === "Enter" || event.key === " ") && input.current?.click()}
        >
          {importing ? "Importing…" : compact ? "Open transcript…" : "Choose a Claude Code .jsonl transcript…"}
        </span>
        <input
          ref={input}
          data-testid="timeline-upload-input"
          type="file"
          accept=".jsonl,application/jsonl,application/x-ndjson,text/plain"
          style={{ display: "none" }}
          disabled={importing}
          onChange={(event) => void onFile(event.target.files?.[0])}
        />
      </label>
      {problem ? (
        <span role="alert" data-testid="timeline-upload-error" style={{ color: "var(--danger, #ff6b6b)" }}>
          {problem}
        </span>
      ) : null}
      {note ? <span data-testid="timeline-upload-note">{note}</span> : null}
    </span>
  );
}
