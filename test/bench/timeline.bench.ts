// Opening the timeline of a synthetic 100,000-event session in Chromium: time to first render (the
// first bar on the axis), time to interactive (a key press selects an event and its details show),
// complete (every event there: the file's first 2,000 events are drawn first, as the IDE page draws a
// large session's first part), and the page's JS heap. The page is the exported HTML file (the same
// TimelineView the IDE page and the share page render, fed the timeline built at export), opened from
// disk with every request refused, so the figures are the viewer's alone: no server, no network. The
// server side is timed too: the same session written as a transcript and read back by loadTimelineSource.
import { spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import { mkdir, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { chromium, type Browser } from "@playwright/test";
import { loadTimelineSource } from "@cairn/api";
import { syntheticTimelineSource, type TimelineSource } from "@cairn/core/timeline";
import { projectDirName } from "@cairn/core/schema";
// The exporter is web app code (not a package entry point): the bench builds the file exactly as the button does.
import { buildExportHtml } from "../../apps/web/src/timeline/export-html.ts";
import { median, report } from "./report.ts";

/** The first marks drawn on the axis: SVG elements while they are few, else the canvas once drawn. */
const FIRST_MARKS = '[data-testid="timeline-bar"], [data-testid="timeline-canvas"][data-drawn="true"]';

const EVENTS = 100_000;
const RUNS = 3;
const TARGET_INTERACTIVE_MS = 1_500;
const TARGET_HEAP_MB = 300;
const webDir = join(dirname(fileURLToPath(import.meta.url)), "..", "..", "apps", "web");
const viewerScript = join(webDir, "public", "timeline-export.js");

export default async function run(): Promise<void> {
  if (!existsSync(viewerScript)) {
    const built = spawnSync(process.execPath, [join(webDir, "scripts", "build-timeline-export.mjs")], { stdio: "inherit" });
    if (built.status !== 0) throw new Error("could not build the timeline viewer bundle");
  }
  const source = syntheticTimelineSource({ events: EVENTS, sidechains: 4 });
  const parent = await mkdtemp(join(tmpdir(), "cairn-bench-timeline-"));
  const browser = await chromium.launch({
    executablePath: process.env.CHROMIUM_PATH ?? "/usr/bin/chromium",
    args: ["--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-background-networking", "--enable-precise-memory-info"],
  });
  try {
    await serverSide(parent, source);
    const html = await buildExportHtml(await readFile(viewerScript, "utf8"), source);
    const file = join(parent, "timeline.html");
    await writeFile(file, html);
    report("timeline.export_file_size", html.length / 1024 / 1024, "MiB");
    const runs: Array<Awaited<ReturnType<typeof openOnce>>> = [];
    for (let attempt = 0; attempt < RUNS; attempt++) runs.push(await openOnce(browser, pathToFileURL(file).href));
    const firstRender = median(runs.map((result) => result.firstRenderMs));
    const interactive = median(runs.map((result) => result.interactiveMs));
    const heap = median(runs.map((result) => result.heapUsedMb));
    report("timeline.events", runs[0]!.events, "events");
    report("timeline.first_render", firstRender, "ms");
    report("timeline.interactive", interactive, "ms");
    report("timeline.complete", median(runs.map((result) => result.completeMs)), "ms");
    // Where the time goes: the HTML parser reaching the viewer script, unpacking and parsing the rows drawn first (the first
    // 2,000 events of a large timeline), making them into rows.
    report("timeline.main_thread_cpu_to_interactive", median(runs.map((result) => result.threadCpuMs)), "ms");
    report("timeline.main_thread_busy_to_interactive", median(runs.map((result) => result.taskMs)), "ms");
    report("timeline.viewer_script_start", median(runs.map((result) => result.scriptStartMs)), "ms");
    report("timeline.data_parse", median(runs.map((result) => result.parseMs)), "ms");
    report("timeline.build", median(runs.map((result) => result.buildMs)), "ms");
    report("timeline.search_filter", median(runs.map((result) => result.searchMs)), "ms");
    report("timeline.js_heap_used", heap, "MB");
    report("timeline.js_heap_used_after_gc", median(runs.map((result) => result.heapAfterGcMb)), "MB");
    if (interactive > TARGET_INTERACTIVE_MS) console.log(`# over target: interactive after ${Math.round(interactive)} ms (target ${TARGET_INTERACTIVE_MS} ms)`);
    if (heap > TARGET_HEAP_MB) console.log(`# over target: JS heap ${Math.round(heap)} MB (target ${TARGET_HEAP_MB} MB)`);
  } finally {
    await browser.close();
    await rm(parent, { recursive: true, force: true });
  }
}

async function openOnce(browser: Browser, url: string) {
  // Offline, and every request noted: the exported file must need none (its CSP forbids them too).
  const context = await browser.newContext({ viewport: { width: 1600, height: 1000 }, offline: true });
  const requests: string[] = [];
  context.on("request", (request) => {
    if (!request.url().startsWith("file:")) requests.push(request.url());
  });
  const page = await context.newPage();
  try {
    const client = await context.newCDPSession(page);
    await client.send("Performance.enable");
    await page.goto(url, { waitUntil: "commit" });
    await page.locator(FIRST_MARKS).first().waitFor({ timeout: 60_000 });
    const firstRenderMs = await page.evaluate(() => performance.now());
    // Interactive: a key press on the list selects the first event and its details render.
    await page.getByTestId("timeline-event-list").focus();
    await page.keyboard.press("ArrowDown");
    await page.locator('[data-testid="timeline-detail"][data-loaded="true"]').waitFor({ timeout: 60_000 });
    const interactiveMs = await page.evaluate(() => performance.now());
    // A large timeline's first events are drawn first: complete is when every event is there.
    await page.locator('#timeline-root[data-complete="true"]').waitFor({ timeout: 60_000 });
    const completeMs = await page.evaluate(() => performance.now());
    const events = Number(await page.getByTestId("timeline").getAttribute("data-events"));
    const heapUsedMb = await heapMb(client);
    // Main-thread busy time up to interactive (the machine is shared: wall time includes waiting for a core).
    const { metrics } = await client.send("Performance.getMetrics");
    const metric = (name: string) => (metrics.find((candidate) => candidate.name === name)?.value ?? Number.NaN) * 1000;
    const taskMs = metric("TaskDuration");
    // CPU time of the renderer's main thread: what opening the timeline costs, whatever else runs on the machine.
    const threadCpuMs = metric("ThreadTime");
    const measures = await page.evaluate(() =>
      Object.fromEntries(performance.getEntriesByType("measure").map((measure) => [measure.name, { start: measure.startTime, duration: measure.duration }])),
    );
    const parseMs = measures["timeline-parse"]?.duration ?? Number.NaN;
    const buildMs = measures["timeline-build"]?.duration ?? Number.NaN;
    const scriptStartMs = measures["timeline-parse"]?.start ?? Number.NaN;
    // A search over every event: type, then wait for the list to say how many matched.
    const searchStarted = await page.evaluate(() => performance.now());
    await page.getByTestId("timeline-search").fill("echo step 4242");
    await page.locator('[data-testid="timeline-match-count"]', { hasText: " of " }).waitFor({ timeout: 60_000 });
    const searchMs = (await page.evaluate(() => performance.now())) - searchStarted;
    await client.send("HeapProfiler.collectGarbage");
    const heapAfterGcMb = await heapMb(client);
    if (requests.length > 0) throw new Error(`the exported page made requests: ${requests.join(", ")}`);
    return { firstRenderMs, interactiveMs, completeMs, events, heapUsedMb, heapAfterGcMb, searchMs, parseMs, buildMs, scriptStartMs, taskMs, threadCpuMs };
  } finally {
    await context.close();
  }
}

async function heapMb(client: { send(method: "Performance.getMetrics"): Promise<{ metrics: Array<{ name: string; value: number }> }> }): Promise<number> {
  const { metrics } = await client.send("Performance.getMetrics");
  return (metrics.find((metric) => metric.name === "JSHeapUsedSize")?.value ?? 0) / 1024 / 1024;
}

/** The same session as a transcript on disk, read back the way `timeline.source` reads it. */
async function serverSide(parent: string, source: TimelineSource): Promise<void> {
  const cairnHome = join(parent, "home");
  const workspaceRoot = "/bench/ws";
  const sessionId = "bench-timeline";
  const directory = join(cairnHome, "projects", projectDirName(workspaceRoot));
  await mkdir(join(directory, sessionId, "subagents"), { recursive: true });
  const meta = { type: "cairn-session", sessionId, timestamp: new Date().toISOString(), cwd: workspaceRoot, cairnSchema: 1, title: source.title };
  await writeFile(join(directory, `${sessionId}.jsonl`), [meta, ...source.lines].map((line) => JSON.stringify(line)).join("\n") + "\n");
  for (const sidechain of source.sidechains) {
    await writeFile(
      join(directory, sessionId, "subagents", `agent-${sidechain.agentId}.jsonl`),
      sidechain.lines.map((line) => JSON.stringify(line)).join("\n") + "\n",
    );
  }
  const times: number[] = [];
  for (let attempt = 0; attempt < 2; attempt++) {
    const started = performance.now();
    const loaded = await loadTimelineSource({ cairnHome, workspaceRoot }, sessionId);
    times.push(performance.now() - started);
    if (loaded.lines.length !== source.lines.length + 1) throw new Error(`read ${loaded.lines.length} lines, wrote ${source.lines.length + 1}`);
  }
  report("timeline.server_load_source", Math.min(...times), "ms");
  report("timeline.source_json", JSON.stringify(source).length / 1024 / 1024, "MiB");
}
