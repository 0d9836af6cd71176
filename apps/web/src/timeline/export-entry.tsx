// The standalone timeline viewer of exported HTML files: bundled by scripts/build-timeline-export.mjs
// into public/timeline-export.js, inlined into each export together with its data.
import type { TimelineSource } from "@cairn/core/timeline";
import { createRoot } from "react-dom/client";
import { SourceTimelineView } from "./timeline-view";
import { readEmbeddedSource } from "./export-html";

async function main(): Promise<void> {
  const root = document.getElementById("timeline-root");
  const element = document.getElementById("timeline-data");
  const text = element?.textContent;
  if (!root || !element || !text) return;
  const started = performance.now();
  // The file's own embedded data; buildTimeline checks every field of every line.
  const source = (await readEmbeddedSource({ encoding: element.dataset.encoding === "gzip-base64" ? "gzip-base64" : "json", text })) as TimelineSource;
  performance.measure("timeline-parse", { start: started, end: performance.now() });
  root.dataset.exported = "true";
  createRoot(root).render(<SourceTimelineView source={source} />);
}

main().catch((error: unknown) => {
  document.body.textContent = `This timeline could not be read: ${error instanceof Error ? error.message : String(error)}`;
});
