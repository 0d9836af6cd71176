import { earlyViewScript } from "./early-view";

/** A session id as the timeline route takes it: letters, digits, `_` and `-` (nothing in it needs escaping in HTML). */
export const TIMELINE_SESSION_ID = /^[A-Za-z0-9_-]{1,128}$/;

/** Where scripts/build-timeline-export.mjs puts the timeline page's own script and styles (served from public/). */
export const TIMELINE_APP_SCRIPT_URL = "/timeline-app.js";
export const TIMELINE_APP_STYLES_URL = "/timeline-app.css";

/**
 * The HTML of `/sessions/<id>/timeline`: the inline script that asks for the timeline at once (early-view.ts), the
 * page's own script (app-entry.tsx, deferred: it runs once the document is parsed, while that request is under way)
 * and a splash until it draws. Not a Next page: no router, no server rendering, nothing to hydrate. `sessionId`
 * must match `TIMELINE_SESSION_ID` (the route checks it), which keeps it inert in the attribute it is written into.
 * `version` names the script's and styles' content (next.config.ts): the browser keeps them, and V8 its compiled
 * code of the script, until they change.
 */
export function timelineAppHtml(sessionId: string, version: string): string {
  if (!TIMELINE_SESSION_ID.test(sessionId)) throw new Error(`not a session id: ${JSON.stringify(sessionId)}`);
  const query = `?v=${encodeURIComponent(version)}`;
  return [
    "<!DOCTYPE html>",
    '<html lang="en"><head>',
    '<meta charset="utf-8">',
    '<meta name="viewport" content="width=device-width, initial-scale=1">',
    '<meta name="color-scheme" content="dark"><meta name="theme-color" content="#15171c">',
    '<meta name="robots" content="noindex, nofollow">',
    "<title>Timeline · Cairn</title>",
    // Before the stylesheet: an inline script after one waits until it has loaded.
    `<script>${earlyViewScript(sessionId)}</script>`,
    `<link rel="stylesheet" href="${TIMELINE_APP_STYLES_URL}${query}">`,
    `<script defer src="${TIMELINE_APP_SCRIPT_URL}${query}"></script>`,
    "</head><body>",
    `<div id="timeline-root" style="height:100%" data-session-id="${sessionId}">`,
    '<div class="splash" data-testid="timeline-loading">Loading the timeline…</div>',
    "</div></body></html>",
  ].join("");
}

/** The answer for a path whose id is not a session id. */
export const TIMELINE_NOT_FOUND_HTML =
  '<!DOCTYPE html><html lang="en"><head><meta charset="utf-8"><title>Not found · Cairn</title></head><body><p>There is no such timeline.</p><p><a href="/">Back to the IDE</a></p></body></html>';
