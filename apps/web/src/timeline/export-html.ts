import { buildTimeline, compactHead, compactTimeline, searchTextOf, type TimelineSource } from "@cairn/core/timeline";

/** The exported file may load nothing: only its own inline script and styles run. */
export const EXPORT_CSP = "default-src 'none'; script-src 'unsafe-inline'; style-src 'unsafe-inline'; img-src data:";

/**
 * JSON safe inside a <script> element and all ASCII: "<" (so no "</script>" or "<!--") and every character past
 * ASCII (line separators included) written as \u escapes. The reader's TextDecoder then makes a one-byte string,
 * several times faster than decoding multi-byte text (a single "·" in a summary used to cost the whole part that).
 */
export function scriptSafeJson(value: unknown): string {
  return JSON.stringify(value).replace(/[<\u007f-\uffff]/g, (char) => `\\u${char.charCodeAt(0).toString(16).padStart(4, "0")}`);
}

function escapeHtml(text: string): string {
  return text.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(/"/g, "&quot;");
}

/**
 * Above this much JSON a part is embedded gzipped: the HTML parser scans inline text slowly (seconds for 50 MB), and
 * unpacking a part is cheap next to that.
 */
export const COMPRESS_ABOVE_CHARS = 256 * 1024;

/** Events per embedded part of the details: opening one event's details unpacks and parses only its part. */
export const DETAIL_PART_EVENTS = 1_000;

/** A larger timeline's first events, embedded on their own ahead of the viewer: drawn while the rest is read. */
export const HEAD_EVENTS = 2_000;

export type EmbeddedData = { encoding: "json" | "gzip-base64"; text: string };

/** A value as the export embeds it: JSON with "<" escaped, or (when large) gzip in base64. */
export async function embedJson(value: unknown, compressAboveChars = COMPRESS_ABOVE_CHARS): Promise<EmbeddedData> {
  const json = scriptSafeJson(value);
  if (json.length <= compressAboveChars) return { encoding: "json", text: json };
  const compressed = await new Response(new Blob([json]).stream().pipeThrough(new CompressionStream("gzip"))).arrayBuffer();
  return { encoding: "gzip-base64", text: toBase64(new Uint8Array(compressed)) };
}

/** Compressed bytes handed to the decompressor at a time: between two, the reader can let the page answer input. */
const INFLATE_SLICE_BYTES = 64 * 1024;
/** The most time unpacking a part works before it lets the page answer input (a key press, a click, a frame). */
const WORK_SLICE_MS = 12;

/** A macrotask's pause: what is waiting (input, a frame) runs first. */
export function yieldToPage(): Promise<void> {
  const scheduler = (globalThis as { scheduler?: { yield?: () => Promise<void> } }).scheduler;
  return scheduler?.yield ? scheduler.yield() : new Promise((resolve) => setTimeout(resolve, 0));
}

/**
 * Reads back what `embedJson` wrote (in the exported page). A large part is unpacked in slices, pausing for the page
 * every `WORK_SLICE_MS`: the whole timeline is read while the first events are shown, and they stay usable.
 */
export async function readEmbeddedJson(data: EmbeddedData): Promise<unknown> {
  if (data.encoding === "json") return JSON.parse(data.text) as unknown;
  let sliceStart = performance.now();
  const pause = async () => {
    if (performance.now() - sliceStart < WORK_SLICE_MS) return;
    await yieldToPage();
    sliceStart = performance.now();
  };
  const bytes = fromBase64(data.text);
  // A stream of the bytes made here, not a Blob's (a Blob's stream is read back through the browser process, which a
  // busy machine makes slow), pulled a slice at a time.
  let fed = 0;
  const compressed = new ReadableStream<BufferSource>(
    {
      pull(controller) {
        if (fed >= bytes.length) return controller.close();
        controller.enqueue(bytes.subarray(fed, fed + INFLATE_SLICE_BYTES));
        fed += INFLATE_SLICE_BYTES;
      },
    },
    { highWaterMark: 0 },
  );
  const reader = compressed.pipeThrough(new DecompressionStream("gzip")).getReader();
  // Chunks gathered and decoded once: much faster than Response.text() on tens of megabytes.
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const step = await reader.read();
    if (step.done) break;
    chunks.push(step.value);
    size += step.value.length;
    await pause();
  }
  const whole = new Uint8Array(size);
  let offset = 0;
  for (const chunk of chunks) {
    whole.set(chunk, offset);
    offset += chunk.length;
  }
  await pause();
  const text = new TextDecoder().decode(whole);
  await pause();
  return JSON.parse(text) as unknown;
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
 * The most text in one script element: a part's text is cut into elements of this size (`data-pieces` on the first
 * says how many). Chromium's HTML parser reads many small elements about twice as fast as one large one (6.7 MB of
 * base64: 350-440 ms against 700-775 ms to DOMContentLoaded), and the page is drawn and answers input only as often
 * as the parser lets it until then.
 */
export const PIECE_CHARS = 64 * 1024;

/** The id of the element holding piece `index` (from 1) of the part `id`. */
export function pieceId(id: string, index: number): string {
  return `${id}.${index}`;
}

/** The ids of the embedded parts (exported-timeline.ts reads them back). */
export const EXPORT_PART_IDS = {
  head: "timeline-head",
  rows: "timeline-data",
  search: "timeline-search",
  details: (part: number) => `timeline-details-${part}`,
};

/**
 * One self-contained HTML file showing the timeline, behind a CSP that forbids every request. The timeline is built
 * here, once, and embedded as the viewer uses it (its rows compact, as the IDE's server sends them): the first
 * `HEAD_EVENTS` events' rows when there are more, the viewer bundle, those events' details, every row, the search
 * texts, and the other details (in parts of `DETAIL_PART_EVENTS` events). The viewer draws the first rows as soon as the parser has passed them and the
 * whole once it is read, as the IDE page does with a large session; a part of the details is unpacked when one of its
 * events is opened, the search texts when the first search is typed.
 */
export async function buildExportHtml(
  viewerScript: string,
  source: TimelineSource,
  options: { compressAboveChars?: number; detailPartEvents?: number } = {},
): Promise<string> {
  // A script's text may not contain its own closing tag.
  const script = viewerScript.replace(/<\/(script)/gi, "<\\/$1");
  const title = `Timeline: ${source.title ?? source.sessionId}`;
  const timeline = buildTimeline(source);
  const partEvents = Math.max(1, options.detailPartEvents ?? DETAIL_PART_EVENTS);
  const embed = (value: unknown) => embedJson(value, options.compressAboveChars);
  const compact = compactTimeline(timeline, `export-${timeline.events.length}`);
  const head = compact.columns.count > HEAD_EVENTS ? await embed(compactHead(compact, HEAD_EVENTS, `${compact.version}-head`)) : null;
  const rows = await embed(compact);
  const search = await embed(timeline.events.map(searchTextOf));
  const parts: EmbeddedData[] = [];
  for (let first = 0; first < timeline.events.length; first += partEvents) {
    parts.push(await embed(timeline.events.slice(first, first + partEvents).map((event) => event.detail)));
  }
  const element = (id: string, data: EmbeddedData) => {
    const type = data.encoding === "json" ? "application/json" : "application/octet-stream";
    const pieces: string[] = [];
    for (let at = 0; at < data.text.length || pieces.length === 0; at += PIECE_CHARS) pieces.push(data.text.slice(at, at + PIECE_CHARS));
    const more = pieces.length > 1 ? ` data-pieces="${pieces.length}"` : "";
    return pieces
      .map((piece, index) =>
        index === 0
          ? `<script type="${type}" id="${id}" data-encoding="${data.encoding}"${more}>${piece}</script>`
          : `<script type="${type}" id="${pieceId(id, index)}">${piece}</script>`,
      )
      .join("\n");
  };
  const detailElements = parts.map((part, index) => element(EXPORT_PART_IDS.details(index), part));
  const headParts = head ? Math.ceil(HEAD_EVENTS / partEvents) : 0;
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
    ...(head ? [element(EXPORT_PART_IDS.head, head)] : []),
    `<script data-detail-part-events="${partEvents}">${script}</script>`,
    // The details of the first events come next (they can be opened as soon as they are drawn), then the rest.
    ...detailElements.slice(0, headParts),
    element(EXPORT_PART_IDS.rows, rows),
    element(EXPORT_PART_IDS.search, search),
    ...detailElements.slice(headParts),
    "</body>",
    "</html>",
    "",
  ].join("\n");
}
