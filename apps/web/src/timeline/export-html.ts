import type { TimelineSource } from "@cairn/core/timeline";

/** The exported file may load nothing: only its own inline script and styles run. */
export const EXPORT_CSP = "default-src 'none'; script-src 'unsafe-inline'; style-src 'unsafe-inline'; img-src data:";

/** JSON safe inside a <script> element: no "<" (so no "</script>" or "<!--"), no line separators that break old parsers. */
export function scriptSafeJson(value: unknown): string {
  return JSON.stringify(value)
    .replace(/</g, "\\u003c")
    .replace(/\u2028/g, "\\u2028")
    .replace(/\u2029/g, "\\u2029");
}

function escapeHtml(text: string): string {
  return text.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(/"/g, "&quot;");
}

/** Above this much JSON the data is embedded gzipped: the HTML parser scans inline text slowly (seconds for 50 MB). */
export const COMPRESS_ABOVE_CHARS = 4 * 1024 * 1024;

export type EmbeddedData = { encoding: "json" | "gzip-base64"; text: string };

/** The source as the export embeds it: JSON with "<" escaped, or (when large) gzip in base64. */
export async function embedSource(source: TimelineSource, compressAboveChars = COMPRESS_ABOVE_CHARS): Promise<EmbeddedData> {
  const json = JSON.stringify(source);
  if (json.length <= compressAboveChars) return { encoding: "json", text: scriptSafeJson(source) };
  const compressed = await new Response(new Blob([json]).stream().pipeThrough(new CompressionStream("gzip"))).arrayBuffer();
  return { encoding: "gzip-base64", text: toBase64(new Uint8Array(compressed)) };
}

/** Reads back what `embedSource` wrote (in the exported page). */
export async function readEmbeddedSource(data: EmbeddedData): Promise<unknown> {
  if (data.encoding === "json") return JSON.parse(data.text) as unknown;
  const bytes = fromBase64(data.text);
  // Chunks gathered and decoded once: much faster than Response.text() on tens of megabytes.
  const reader = new Blob([bytes]).stream().pipeThrough(new DecompressionStream("gzip")).getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const step = await reader.read();
    if (step.done) break;
    chunks.push(step.value);
    size += step.value.length;
  }
  const whole = new Uint8Array(size);
  let offset = 0;
  for (const chunk of chunks) {
    whole.set(chunk, offset);
    offset += chunk.length;
  }
  return JSON.parse(new TextDecoder().decode(whole)) as unknown;
}

/** Native `Uint8Array.fromBase64` where the browser has it (Chromium 140+, Firefox 133+), else atob. */
function fromBase64(text: string): Uint8Array<ArrayBuffer> {
  const native = (Uint8Array as unknown as { fromBase64?: (base64: string) => Uint8Array<ArrayBuffer> }).fromBase64;
  if (native) return native(text);
  const binary = atob(text);
  const bytes = new Uint8Array(binary.length);
  for (let position = 0; position < binary.length; position++) bytes[position] = binary.charCodeAt(position);
  return bytes;
}

function toBase64(bytes: Uint8Array): string {
  let binary = "";
  const CHUNK = 0x8000;
  for (let start = 0; start < bytes.length; start += CHUNK) binary += String.fromCharCode(...bytes.subarray(start, start + CHUNK));
  return btoa(binary);
}

/**
 * One self-contained HTML file showing the timeline: the viewer bundle (which renders
 * `#timeline-data` into `#timeline-root`) and the source, both inline, behind a CSP that forbids
 * every request.
 */
export async function buildExportHtml(viewerScript: string, source: TimelineSource, options: { compressAboveChars?: number } = {}): Promise<string> {
  // A script's text may not contain its own closing tag.
  const script = viewerScript.replace(/<\/(script)/gi, "<\\/$1");
  const title = `Timeline: ${source.title ?? source.sessionId}`;
  const data = await embedSource(source, options.compressAboveChars);
  const type = data.encoding === "json" ? "application/json" : "application/octet-stream";
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
    `<script type="${type}" id="timeline-data" data-encoding="${data.encoding}">${data.text}</script>`,
    `<script>${script}</script>`,
    "</body>",
    "</html>",
    "",
  ].join("\n");
}
