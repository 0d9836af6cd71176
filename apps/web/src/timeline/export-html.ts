import type { TimelineSource } from "@cairn/core/timeline";

/** The exported file may load nothing: only its own inline script and styles run. */
export const EXPORT_CSP = "default-src 'none'; script-src 'unsafe-inline'; style-src 'unsafe-inline'; img-src data:";

/** JSON safe inside a <script> element: no "<" (so no "</script>" or "<!--"), no line separators that break old parsers. */
export function scriptSafeJson(value: unknown): string {
  return JSON.stringify(value).replace(/</g, "\\u003c").replace(/\u2028/g, "\\u2028").replace(/\u2029/g, "\\u2029");
}

function escapeHtml(text: string): string {
  return text.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(/"/g, "&quot;");
}

/**
 * One self-contained HTML file showing the timeline: the viewer bundle (which renders
 * `#timeline-data` into `#timeline-root`) and the source as JSON, both inline, behind a CSP that
 * forbids every request.
 */
export function buildExportHtml(viewerScript: string, source: TimelineSource): string {
  // A script's text may not contain its own closing tag.
  const script = viewerScript.replace(/<\/(script)/gi, "<\\/$1");
  const title = `Timeline: ${source.title ?? source.sessionId}`;
  return [
    "<!doctype html>",
    '<html lang="en">',
    "<head>",
    '<meta charset="utf-8">',
    `<meta http-equiv="Content-Security-Policy" content="${EXPORT_CSP}">`,
    '<meta name="viewport" content="width=device-width, initial-scale=1">',
    '<meta name="referrer" content="no-referrer">',
    `<title>${escapeHtml(title)}</title>`,
    "<style>html,body{margin:0;height:100%;background:#15171c;color:#d8dee9;font:13px/1.45 system-ui,sans-serif}#timeline-root{height:100vh}</style>",
    "</head>",
    "<body>",
    '<div id="timeline-root"></div>',
    `<script type="application/json" id="timeline-data">${scriptSafeJson(source)}</script>`,
    `<script>${script}</script>`,
    "</body>",
    "</html>",
    "",
  ].join("\n");
}
