// The IDE's own timeline page (`/sessions/<id>/timeline`, tRPC to `cairn serve`, production build) in
// Chromium, for a synthetic session of 100,000 events and one of 1,000,000: first render (the first bar),
// interactive (a key press selects the first event and its details, fetched from the server, show),
// complete (a large transcript is shown first in part: every event is there), JS heap once complete, a
// search over every event, and scrolling the list (frame times while it scrolls). The first open of each
// session is cold (the server reads and builds the timeline); the later ones hit its cache. The browser
// signs in once (cookie + browser key in localStorage) and opens each time a fresh page of that context.
// An open that times out is reported with the time it had waited, so its target shows as missed.
// Options for a closer look: CAIRN_BENCH_TIMELINE_SIZES=_100k,_1m picks the sizes; CAIRN_BENCH_TIMELINE_SCROLLS=<n>
// scrolls each open n times and prints every p95 (the figure stays the first scroll's); CAIRN_BENCH_TIMELINE_TRACE=<dir>
// writes a Chromium trace of each open's scrolls there (what a slow frame did: layout, script, GC).
import { createWriteStream, realpathSync, rmSync } from "node:fs";
import { mkdir } from "node:fs/promises";
import { availableParallelism, loadavg } from "node:os";
import { join } from "node:path";
import { chromium, type Browser, type BrowserContext, type Page } from "@playwright/test";
import { projectDirName } from "@cairn/core/schema";
import { syntheticTimelineSource, type TimelineSource } from "@cairn/core/timeline";
import { startCairn, tempDir, type CairnProcess } from "../e2e/support/servers.ts";
import { median, percentile, report } from "./report.ts";

/** The first marks drawn on the axis: SVG elements while they are few, else the canvas once drawn. */
const FIRST_MARKS = '[data-testid="timeline-bar"], [data-testid="timeline-canvas"][data-drawn="true"]';

const SIZES = [
  { events: 100_000, name: "", warmRuns: 3 },
  { events: 1_000_000, name: "_1m", warmRuns: 1 },
].filter((size) => !process.env.CAIRN_BENCH_TIMELINE_SIZES || process.env.CAIRN_BENCH_TIMELINE_SIZES.split(",").includes(size.name || "_100k"));
/** A directory to write a Chromium trace of each scroll into (to see what a slow frame did). */
const TRACE_DIR = process.env.CAIRN_BENCH_TIMELINE_TRACE;
const SCROLLS = Number(process.env.CAIRN_BENCH_TIMELINE_SCROLLS ?? 1);

export default async function run(): Promise<void> {
  const workspace = realpathSync(tempDir("cairn-bench-timeline-ws-"));
  const cairn = await startCairn({ workspace });
  const browser = await chromium.launch({
    executablePath: process.env.CHROMIUM_PATH ?? "/usr/bin/chromium",
    args: ["--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-background-networking", "--enable-precise-memory-info"],
  });
  try {
    const context = await signIn(browser, cairn);
    for (const size of SIZES) {
      const sessionId = `bench-timeline${size.name || "-100k"}`;
      await writeSession(cairn, workspace, sessionId, syntheticTimelineSource({ events: size.events, sidechains: 4 }));
      // Wall-clock figures follow the machine's load (two cores shared by every process): it is printed beside them.
      console.log(
        `# timeline-ide${size.name}: load average ${loadavg()
          .map((load) => load.toFixed(1))
          .join(" ")} on ${availableParallelism()} cores`,
      );
      const cold = await openOnce(context, cairn, sessionId);
      report(`timeline.ide${size.name}_interactive_cold`, cold.interactiveMs, "ms");
      report(`timeline.ide${size.name}_complete_cold`, cold.completeMs, "ms");
      report(`timeline.ide${size.name}_page_load_cold`, cold.pageLoadMs, "ms");
      // The warm opens run all the same: they say what a later viewer gets (or wait for the server's build to end).
      if (cold.timedOut) console.log(`# timeline-ide${size.name}: the cold open timed out (${cold.timedOut})`);
      else report(`timeline.ide${size.name}_events`, cold.events, "events");
      const warm: Opened[] = [];
      for (let attempt = 0; attempt < size.warmRuns; attempt++) warm.push(await openOnce(context, cairn, sessionId));
      const pick = (key: NumericKey) => median(warm.map((opened) => opened[key]));
      report(`timeline.ide${size.name}_page_load`, pick("pageLoadMs"), "ms");
      report(`timeline.ide${size.name}_first_render`, pick("firstRenderMs"), "ms");
      report(`timeline.ide${size.name}_interactive`, pick("interactiveMs"), "ms");
      report(`timeline.ide${size.name}_complete`, pick("completeMs"), "ms");
      report(`timeline.ide${size.name}_fetch`, pick("fetchMs"), "ms");
      report(`timeline.ide${size.name}_expand`, pick("expandMs"), "ms");
      report(`timeline.ide${size.name}_main_thread_cpu_to_interactive`, pick("threadCpuMs"), "ms");
      report(`timeline.ide${size.name}_search`, pick("searchMs"), "ms");
      report(`timeline.ide${size.name}_scroll_frame_p95`, pick("scrollFrameP95Ms"), "ms");
      report(`timeline.ide${size.name}_js_heap_used`, pick("heapUsedMb"), "MB");
      report(`timeline.ide${size.name}_js_heap_used_after_gc`, pick("heapAfterGcMb"), "MB");
    }
  } finally {
    await browser.close();
    await cairn.stop();
    rmSync(workspace, { recursive: true, force: true });
  }
}

/** The session as a transcript in the server's CAIRN_HOME, written a line at a time (a million lines do not fit one string). */
async function writeSession(cairn: CairnProcess, workspace: string, sessionId: string, source: TimelineSource): Promise<void> {
  const directory = join(cairn.cairnHome, "projects", projectDirName(workspace));
  await mkdir(join(directory, sessionId, "subagents"), { recursive: true });
  const meta = { type: "cairn-session", sessionId, timestamp: new Date().toISOString(), cwd: workspace, cairnSchema: 1, title: source.title };
  await writeLines(join(directory, `${sessionId}.jsonl`), [meta, ...source.lines]);
  for (const sidechain of source.sidechains) await writeLines(join(directory, sessionId, "subagents", `agent-${sidechain.agentId}.jsonl`), sidechain.lines);
}

async function writeLines(path: string, lines: readonly unknown[]): Promise<void> {
  const out = createWriteStream(path);
  for (const line of lines) {
    if (!out.write(`${JSON.stringify(line)}\n`)) await new Promise<void>((resolve) => out.once("drain", () => resolve()));
  }
  await new Promise<void>((resolve, reject) => out.end((error?: Error | null) => (error ? reject(error) : resolve())));
}

type Opened = {
  /** Why the open stopped early (the figures after that point are NaN), or undefined. */
  timedOut: string | undefined;
  events: number;
  firstRenderMs: number;
  interactiveMs: number;
  completeMs: number;
  fetchMs: number;
  expandMs: number;
  threadCpuMs: number;
  searchMs: number;
  scrollFrameP95Ms: number;
  heapUsedMb: number;
  heapAfterGcMb: number;
  pageLoadMs: number;
};
type NumericKey = Exclude<keyof Opened, "timedOut">;

const OPEN_TIMEOUT_MS = 300_000;

/**
 * Signs the browser in once: the printed link sets the session cookie and hands the page its key in the URL
 * fragment, which the page keeps in localStorage. Every page opened later in this context has both.
 */
async function signIn(browser: Browser, cairn: CairnProcess): Promise<BrowserContext> {
  const context = await browser.newContext({ viewport: { width: 1600, height: 1000 } });
  const page = await context.newPage();
  await page.goto(cairn.loginUrl);
  await page.waitForFunction('window.localStorage.getItem("cairn:browser-key") !== null && window.location.hash === ""');
  await page.close();
  return context;
}

/** One open of the timeline in a fresh page of the signed-in context (its own JS heap; the HTTP cache is shared). */
async function openOnce(context: BrowserContext, cairn: CairnProcess, sessionId: string): Promise<Opened> {
  const page = await context.newPage();
  const opened: Opened = {
    timedOut: undefined,
    events: Number.NaN,
    firstRenderMs: Number.NaN,
    interactiveMs: Number.NaN,
    completeMs: Number.NaN,
    fetchMs: Number.NaN,
    expandMs: Number.NaN,
    threadCpuMs: Number.NaN,
    searchMs: Number.NaN,
    scrollFrameP95Ms: Number.NaN,
    heapUsedMb: Number.NaN,
    heapAfterGcMb: Number.NaN,
    pageLoadMs: Number.NaN,
  };
  const started = Date.now();
  try {
    const client = await context.newCDPSession(page);
    await client.send("Performance.enable");
    const cpuBefore = (await metric(client, "ThreadTime")) * 1000;
    await page.goto(`${cairn.url}/sessions/${sessionId}/timeline`, { waitUntil: "commit" });
    await page.locator(FIRST_MARKS).first().waitFor({ timeout: OPEN_TIMEOUT_MS });
    opened.firstRenderMs = await page.evaluate(() => performance.now());
    await page.getByTestId("timeline-event-list").focus();
    await page.keyboard.press("ArrowDown");
    await page.locator('[data-testid="timeline-detail"][data-loaded="true"]').waitFor({ timeout: OPEN_TIMEOUT_MS });
    opened.interactiveMs = await page.evaluate(() => performance.now());
    opened.threadCpuMs = (await metric(client, "ThreadTime")) * 1000 - cpuBefore;
    const measures = await page.evaluate(() => Object.fromEntries(performance.getEntriesByType("measure").map((measure) => [measure.name, measure.duration])));
    // The reference: the page's own scripts loaded (its load event), timeline or not.
    opened.pageLoadMs = await page.evaluate(
      () => (performance.getEntriesByType("navigation")[0] as PerformanceNavigationTiming | undefined)?.loadEventEnd ?? Number.NaN,
    );
    opened.fetchMs = measures["timeline-fetch"] ?? Number.NaN;
    opened.expandMs = measures["timeline-expand"] ?? Number.NaN;
    await page.locator('[data-testid="timeline-page"][data-complete="true"]').waitFor({ timeout: OPEN_TIMEOUT_MS });
    opened.completeMs = await page.evaluate(() => performance.now());
    opened.events = Number(await page.getByTestId("timeline").getAttribute("data-events"));
    opened.heapUsedMb = (await metric(client, "JSHeapUsedSize")) / 1024 / 1024;
    await client.send("HeapProfiler.collectGarbage");
    opened.heapAfterGcMb = (await metric(client, "JSHeapUsedSize")) / 1024 / 1024;
    const tracer = TRACE_DIR ? page.context().browser() : null;
    await tracer?.startTracing(page, { path: join(TRACE_DIR ?? "", `scroll-${Date.now()}.json`), screenshots: false });
    opened.scrollFrameP95Ms = await scrollFrames(page);
    for (let again = 1; again < SCROLLS; again++) {
      await page.evaluate(`document.querySelector('[data-testid="timeline-event-list"]').scrollTop = 0`);
      await page.waitForTimeout(300);
      console.log(`# scroll again: p95 ${(await scrollFrames(page)).toFixed(1)} ms`);
    }
    await tracer?.stopTracing();
    const searchStarted = await page.evaluate(() => performance.now());
    await page.getByTestId("timeline-search").fill("echo step 4242");
    await page.locator('[data-testid="timeline-match-count"]', { hasText: " of " }).waitFor({ timeout: OPEN_TIMEOUT_MS });
    opened.searchMs = (await page.evaluate(() => performance.now())) - searchStarted;
  } catch (error) {
    if ((error as Error).name !== "TimeoutError") throw error;
    opened.timedOut = (error as Error).message.split("\n")[0];
    // What was not reached counts as the time waited: a missed target, never a missing figure.
    if (Number.isNaN(opened.interactiveMs)) opened.interactiveMs = Date.now() - started;
    if (Number.isNaN(opened.completeMs)) opened.completeMs = Date.now() - started;
  } finally {
    await page.close();
  }
  return opened;
}

/**
 * Scrolls the event list down in steps, one per frame, and returns the 95th percentile frame time. The
 * page script is a string: tsx would otherwise wrap its functions in a helper the page does not have.
 */
async function scrollFrames(page: Page): Promise<number> {
  const frames = await page.evaluate<number[]>(`new Promise((resolve) => {
    const list = document.querySelector('[data-testid="timeline-event-list"]');
    const times = [];
    let last = performance.now();
    let step = 0;
    const tick = (now) => {
      times.push(now - last);
      last = now;
      list.scrollTop += 2000;
      if (++step < 120) requestAnimationFrame(tick);
      else resolve(times.slice(1));
    };
    requestAnimationFrame(tick);
  })`);
  return percentile(frames, 95);
}

/** A Chromium performance metric as CDP gives it (times in seconds, sizes in bytes). */
async function metric(
  client: { send(method: "Performance.getMetrics"): Promise<{ metrics: Array<{ name: string; value: number }> }> },
  name: string,
): Promise<number> {
  const { metrics } = await client.send("Performance.getMetrics");
  const value = metrics.find((candidate) => candidate.name === name)?.value ?? Number.NaN;
  return value;
}
