// First-load JavaScript of the IDE page, as `next build` records it in .next/diagnostics/route-bundle-stats.json:
// raw bytes (Next's own figure) and gzip bytes (what travels), with a check that Monaco is not among them.
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { gzipSync } from "node:zlib";
import { report } from "./report.ts";

const webDir = join(dirname(fileURLToPath(import.meta.url)), "..", "..", "apps", "web");
const statsPath = join(webDir, ".next", "diagnostics", "route-bundle-stats.json");
const ROUTE = "/";
const GZIP_BUDGET_BYTES = 250 * 1024;

type RouteStats = { route: string; firstLoadUncompressedJsBytes: number; firstLoadChunkPaths: string[] };

/** Strings only Monaco's code contains (they survive minification); in a first-load chunk they mean it is no longer lazy. */
const MONACO_MARKERS = ["editorWorkerService", "MonacoEnvironment"];
const hasMonaco = (text: string) => MONACO_MARKERS.some((marker) => text.includes(marker));

export default async function run(): Promise<void> {
  if (!existsSync(statsPath)) throw new Error(`${statsPath} is missing: run \`next build\` in apps/web first`);
  const stats = JSON.parse(readFileSync(statsPath, "utf8")) as RouteStats[];
  const page = stats.find((entry) => entry.route === ROUTE);
  if (!page) throw new Error(`no bundle stats for route ${ROUTE}`);
  let raw = 0;
  let gzip = 0;
  const monacoChunks: string[] = [];
  for (const chunk of page.firstLoadChunkPaths) {
    const bytes = readFileSync(join(webDir, chunk));
    raw += bytes.length;
    gzip += gzipSync(bytes, { level: 9 }).length;
    if (hasMonaco(bytes.toString("utf8"))) monacoChunks.push(chunk);
  }
  // The markers must find Monaco somewhere in the build, or the check below proves nothing.
  const chunksDir = join(webDir, ".next", "static", "chunks");
  const lazyMonaco = readdirSync(chunksDir).filter((name) => name.endsWith(".js") && hasMonaco(readFileSync(join(chunksDir, name), "utf8")));
  if (lazyMonaco.length === 0) throw new Error(`no chunk in ${chunksDir} contains ${MONACO_MARKERS.join(" or ")}: update the markers`);
  report("web.first_load_js_raw", page.firstLoadUncompressedJsBytes / 1024, "KiB");
  report("web.first_load_js_gzip", gzip / 1024, "KiB");
  report("web.first_load_js_chunks", page.firstLoadChunkPaths.length, "files");
  report("web.first_load_gzip_budget_used", (gzip / GZIP_BUDGET_BYTES) * 100, "%");
  // Everything else loads on demand: Monaco and its workers, xterm, the markdown renderer.
  const firstLoad = new Set(page.firstLoadChunkPaths.map((chunk) => chunk.split("/").pop()));
  const lazyGzip = readdirSync(chunksDir)
    .filter((name) => name.endsWith(".js") && !firstLoad.has(name))
    .reduce((sum, name) => sum + gzipSync(readFileSync(join(chunksDir, name)), { level: 6 }).length, 0);
  report("web.lazy_js_gzip", lazyGzip / 1024, "KiB");
  if (raw !== page.firstLoadUncompressedJsBytes) console.log(`# note: chunk files sum to ${raw} B, Next recorded ${page.firstLoadUncompressedJsBytes} B`);
  if (monacoChunks.length > 0) throw new Error(`Monaco is in the first load (${monacoChunks.join(", ")}); it must load lazily`);
  if (gzip > GZIP_BUDGET_BYTES) throw new Error(`first-load JS is ${Math.round(gzip / 1024)} KiB gzipped, over the ${GZIP_BUDGET_BYTES / 1024} KiB budget`);
}
