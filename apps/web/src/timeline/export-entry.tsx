// The standalone timeline viewer of exported HTML files: bundled by scripts/build-timeline-export.mjs
// into public/timeline-export.js, inlined into each export together with its data.
import type { TimelineSource } from "@cairn/core/timeline";
import { createRoot } from "react-dom/client";
import { TimelineView } from "../components/timeline/timeline-view";

const root = document.getElementById("timeline-root");
const data = document.getElementById("timeline-data")?.textContent;
if (root && data) {
  // The file's own embedded JSON; buildTimeline checks every field of every line.
  const started = performance.now();
  const source = JSON.parse(data) as TimelineSource;
  performance.measure("timeline-parse", { start: started, end: performance.now() });
  root.dataset.exported = "true";
  createRoot(root).render(<TimelineView source={source} />);
}
