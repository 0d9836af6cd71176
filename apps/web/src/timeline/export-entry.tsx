// The standalone timeline viewer of exported HTML files: bundled by scripts/build-timeline-export.mjs
// into public/timeline-export.js, inlined into each export together with its data (export-html.ts).
import { createRoot } from "react-dom/client";
import { DETAIL_PART_EVENTS, EXPORT_PART_IDS, type EmbeddedData } from "./export-html";
import { readExportedTimeline } from "./exported-timeline";
import { TimelineView } from "./timeline-view";

/**
 * An embedded part of this page. The viewer runs as soon as the parser has passed the rows; a later part is read
 * once the parser is past it (its next element is there) or done, never while its text is still coming in.
 */
async function pageElement(id: string): Promise<EmbeddedData | null> {
  const element = document.getElementById(id);
  if (document.readyState === "loading" && !element?.nextElementSibling) {
    await new Promise((resolve) => document.addEventListener("DOMContentLoaded", resolve, { once: true }));
    return pageElement(id);
  }
  if (!element) return null;
  return { encoding: element.dataset.encoding === "gzip-base64" ? "gzip-base64" : "json", text: element.textContent ?? "" };
}

async function main(): Promise<void> {
  const root = document.getElementById("timeline-root");
  const rows = document.getElementById(EXPORT_PART_IDS.rows);
  if (!root || !rows) return;
  const exported = await readExportedTimeline(pageElement, Number(rows.dataset.detailPartEvents) || DETAIL_PART_EVENTS);
  root.dataset.exported = "true";
  createRoot(root).render(<TimelineView timeline={exported.timeline} loadDetail={exported.loadDetail} search={exported.search} />);
}

main().catch((error: unknown) => {
  document.body.textContent = `This timeline could not be read: ${error instanceof Error ? error.message : String(error)}`;
});
