"use client";

import type { TimelineSource } from "@cairn/core/timeline";
import { useState } from "react";
import { buildExportHtml } from "./export-html";

/** Where the build puts the standalone viewer (see scripts/build-timeline-export.mjs). */
export const EXPORT_SCRIPT_URL = "/timeline-export.js";

/**
 * Downloads the timeline as one self-contained HTML file that opens offline and loads nothing. The
 * file carries the raw source, fetched only when asked for (`loadSource`).
 */
export function ExportHtmlButton({ sessionId, loadSource }: { sessionId: string; loadSource: () => Promise<TimelineSource> }) {
  const [state, setState] = useState<{ busy: boolean; problem: string | null }>({ busy: false, problem: null });
  const exportHtml = async () => {
    setState({ busy: true, problem: null });
    try {
      const response = await fetch(EXPORT_SCRIPT_URL, { cache: "no-store" });
      if (!response.ok) throw new Error(`the viewer script is missing (${response.status}); run the web build`);
      const html = await buildExportHtml(await response.text(), await loadSource());
      const url = URL.createObjectURL(new Blob([html], { type: "text/html;charset=utf-8" }));
      try {
        const link = document.createElement("a");
        link.href = url;
        link.download = `timeline-${sessionId}.html`;
        document.body.append(link);
        link.click();
        link.remove();
      } finally {
        // The click has started the download; the URL is not needed after this turn.
        setTimeout(() => URL.revokeObjectURL(url), 0);
      }
      setState({ busy: false, problem: null });
    } catch (error) {
      setState({ busy: false, problem: error instanceof Error ? error.message : String(error) });
    }
  };
  return (
    <>
      <button type="button" onClick={() => void exportHtml()} disabled={state.busy} data-testid="timeline-export">
        {state.busy ? "Exporting…" : "Export HTML"}
      </button>
      {state.problem ? (
        <span role="alert" data-testid="timeline-export-error" style={{ color: "var(--danger, #ff6b6b)" }}>
          {state.problem}
        </span>
      ) : null}
    </>
  );
}
