// The standalone timeline viewer of exported HTML files: bundled by scripts/build-timeline-export.mjs
// into public/timeline-export.js, inlined into each export together with its data (export-html.ts).
import { createRoot } from "react-dom/client";
import { DETAIL_PART_EVENTS, pieceId, type EmbeddedData } from "./export-html";
import { readExportedTimeline, type ExportedTimeline } from "./exported-timeline";
import { TimelineView } from "./timeline-view";
import styles from "./timeline.module.css";

/** Read while this script runs (not after an await): the viewer's own element says how the details were cut. */
const detailPartEvents = Number(document.currentScript?.dataset.detailPartEvents) || DETAIL_PART_EVENTS;

/** Resolves when the parser may have added more of the page (30 ms on) or has finished it. */
function parserProgress(): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      clearTimeout(timer);
      document.removeEventListener("DOMContentLoaded", done);
      resolve();
    };
    const timer = setTimeout(done, 30);
    document.addEventListener("DOMContentLoaded", done);
  });
}

/**
 * An embedded part of this page (its pieces joined). The viewer runs as soon as the parser has passed it (and the
 * first rows before it); a later part is read once the parser is past its last piece (the next element is there) or
 * done, never while its text is still coming in.
 */
async function pageElement(id: string): Promise<EmbeddedData | null> {
  const element = document.getElementById(id);
  const pieces = Number(element?.dataset.pieces ?? 1);
  const last = pieces > 1 ? document.getElementById(pieceId(id, pieces - 1)) : element;
  if (document.readyState === "loading" && !last?.nextElementSibling) {
    await parserProgress();
    return pageElement(id);
  }
  if (!element) return null;
  let text = element.textContent ?? "";
  for (let index = 1; index < pieces; index++) text += document.getElementById(pieceId(id, index))?.textContent ?? "";
  return { encoding: element.dataset.encoding === "gzip-base64" ? "gzip-base64" : "json", text };
}

function View({ exported, timeline, note }: { exported: ExportedTimeline; timeline: ExportedTimeline["first"]; note?: { text: string; problem: boolean } }) {
  const actions = note ? (
    <span
      className={styles.loadingMore}
      data-testid={note.problem ? "timeline-export-error" : "timeline-loading-more"}
      role={note.problem ? "alert" : undefined}
    >
      {note.text}
    </span>
  ) : undefined;
  return <TimelineView timeline={timeline} loadDetail={exported.loadDetail} search={exported.search} actions={actions} />;
}

/**
 * How long the first events stay on screen, with no key press or click meanwhile, once the page is read, before the
 * whole timeline is unpacked: its last steps (parsing, making the rows, drawing them) take the page for a few hundred
 * ms, and what the reader does first with what is shown (open an event, move through the list) is answered before
 * that. Unpacked while the page was still being read, it held the browser's parser back (DOMContentLoaded at 1.4 s
 * instead of 0.4 s), and the page answered nothing until then.
 */
const QUIET_BEFORE_WHOLE_MS = 300;

let lastInput = performance.now();
for (const type of ["keydown", "pointerdown", "wheel"])
  document.addEventListener(type, () => (lastInput = performance.now()), { capture: true, passive: true });

/**
 * Resolves once the page is read (DOMContentLoaded), the browser is idle and nothing was typed or clicked for `ms`
 * (and `ms` have passed since the page was read).
 */
async function quietFor(ms: number): Promise<void> {
  if (document.readyState === "loading") await new Promise((resolve) => document.addEventListener("DOMContentLoaded", resolve, { once: true }));
  const from = performance.now();
  for (;;) {
    await new Promise((resolve) => requestIdleCallback(resolve, { timeout: ms }));
    const now = performance.now();
    const since = Math.max(from, lastInput);
    if (now - since >= ms) return;
    await new Promise((resolve) => setTimeout(resolve, ms - (now - since)));
  }
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
    if (exported.partial) await quietFor(QUIET_BEFORE_WHOLE_MS);
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
