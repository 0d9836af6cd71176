// The standalone timeline viewer of exported HTML files: bundled by scripts/build-timeline-export.mjs
// into public/timeline-export.js, inlined into each export together with its data (export-html.ts).
import { createRoot } from "react-dom/client";
import { DETAIL_PART_EVENTS, type EmbeddedData } from "./export-html";
import { readExportedTimeline, type ExportedTimeline } from "./exported-timeline";
import { TimelineView } from "./timeline-view";
import styles from "./timeline.module.css";

/** Read while this script runs (not after an await): the viewer's own element says how the details were cut. */
const detailPartEvents = Number(document.currentScript?.dataset.detailPartEvents) || DETAIL_PART_EVENTS;

/**
 * An embedded part of this page. The viewer runs as soon as the parser has passed it (and the first rows before it);
 * a later part is read once the parser is past it (its next element is there) or done, never while its text is still
 * coming in.
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

function View({ exported, timeline, note }: { exported: ExportedTimeline; timeline: ExportedTimeline["first"]; note?: { text: string; problem: boolean } }) {
  const actions = note ? (
    <span className={styles.loadingMore} data-testid={note.problem ? "timeline-export-error" : "timeline-loading-more"} role={note.problem ? "alert" : undefined}>
      {note.text}
    </span>
  ) : undefined;
  return <TimelineView timeline={timeline} loadDetail={exported.loadDetail} search={exported.search} actions={actions} />;
}

async function main(): Promise<void> {
  const element = document.getElementById("timeline-root");
  if (!element) return;
  const exported = await readExportedTimeline(pageElement, detailPartEvents);
  element.dataset.exported = "true";
  const root = createRoot(element);
  if (exported.partial) {
    root.render(<View exported={exported} timeline={exported.first} note={{ text: "Reading the rest of the session…", problem: false }} />);
  }
  try {
    // The rest waits until the first events are drawn and the browser is idle (or 250 ms): a key press or a click
    // on what is shown is answered before the whole timeline is unpacked.
    if (exported.partial) await new Promise((resolve) => requestIdleCallback(resolve, { timeout: 250 }));
    root.render(<View exported={exported} timeline={await exported.whole()} />);
    element.dataset.complete = "true";
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    root.render(<View exported={exported} timeline={exported.first} note={{ text: `Only the first events could be read: ${reason}`, problem: true }} />);
  }
}

main().catch((error: unknown) => {
  document.body.textContent = `This timeline could not be read: ${error instanceof Error ? error.message : String(error)}`;
});
