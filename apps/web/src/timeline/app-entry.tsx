// The timeline page's own script (`/sessions/<id>/timeline`): bundled by scripts/build-timeline-export.mjs into
// public/timeline-app.js and loaded by the page's HTML (timeline-app-html.ts). It is not a Next page: it needs
// neither Next's router nor React Query, so it starts as soon as React and the timeline are loaded, with no
// hydration, and draws the answer the page's inline script asked for (early-view.ts).
import { createTRPCClient } from "@trpc/client";
import { createRoot } from "react-dom/client";
import type { AppRouter } from "@cairn/api/router";
import { browserLinks } from "../trpc/links";
import { TimelineClientProvider } from "./timeline-client";
import { TimelinePage } from "./timeline-page";
import "../../app/globals.css";

const root = document.getElementById("timeline-root");
const sessionId = root?.dataset.sessionId;
if (root && sessionId) {
  const client = createTRPCClient<AppRouter>({ links: browserLinks("/api/trpc", { signedIn: true }) });
  createRoot(root).render(
    <TimelineClientProvider client={client}>
      <TimelinePage sessionId={sessionId} />
    </TimelineClientProvider>,
  );
}
