import { readFileSync } from "node:fs";
import { join } from "node:path";
import { syntheticTimelineSource } from "@cairn/core/timeline";
import { repoRoot } from "./support/servers.ts";
import { expect, screenshot, test } from "./support/fixtures.ts";

const claudeCodeFixture = join(repoRoot, "packages", "core", "src", "timeline", "__fixtures__", "claude-code-explore-edit.jsonl");

test("timeline: parallel read-only calls overlap on the axis, search filters the list, details show a tool's output, the HTML export works offline", async ({
  ide: page,
  e2e,
  sim,
  browser,
}) => {
  await sim.script([
    {
      content: [
        { type: "text", text: "Let me look at two files at once." },
        { type: "tool_use", name: "Read", input: { file_path: join(e2e.workspace, "README.md") } },
        { type: "tool_use", name: "Read", input: { file_path: join(e2e.workspace, "src", "math.ts") } },
      ],
    },
    { content: [{ type: "text", text: "Both files are short." }] },
  ]);
  await page.getByTestId("chat-input").fill("Read the readme and math.ts");
  await page.getByTestId("chat-input").press("Enter");
  await expect(page.getByTestId("message-assistant").last()).toContainText("Both files are short.");
  await expect(page.getByTestId("chat")).toHaveAttribute("data-running", "false");
  const sessionId = await page.getByTestId("chat").getAttribute("data-session-id");
  expect(sessionId).toBeTruthy();

  await page.goto(`${e2e.url}/sessions/${sessionId}/timeline`);
  const timeline = page.getByTestId("timeline");
  await expect(timeline).toHaveAttribute("data-timing-known", "true");
  for (const lane of ["model", "tools", "permission", "hooks", "compaction", "errors"]) {
    await expect(page.locator(`[data-testid="timeline-lane"][data-lane="${lane}"]`)).toHaveCount(1);
  }
  const toolBars = page.locator('[data-testid="timeline-bar"][data-kind="tool"]');
  await expect(toolBars).toHaveCount(2);
  await expect(page.locator('[data-testid="timeline-bar"][data-kind="tool"][data-tool-name="Read"]')).toHaveCount(2);
  // The two calls ran in one concurrent batch: their bars share part of the x axis, on separate rows.
  await page.getByTestId("timeline-zoom-in").click();
  await page.getByTestId("timeline-fit").click();
  const boxes = await Promise.all([toolBars.nth(0).boundingBox(), toolBars.nth(1).boundingBox()]);
  const [first, second] = boxes.map((box) => box!);
  expect(first!.x < second!.x + second!.width && second!.x < first!.x + first!.width).toBe(true);
  expect(first!.y).not.toBe(second!.y);
  await expect(page.locator('[data-testid="timeline-bar"][data-kind="model"]')).toHaveCount(2);
  await screenshot(page, "timeline-parallel");

  // Search narrows the list; the detail of a match shows the tool's output as text.
  const list = page.getByTestId("timeline-event-list");
  const allCount = Number(await list.getAttribute("data-count"));
  await page.keyboard.press("/");
  await expect(page.getByTestId("timeline-search")).toBeFocused();
  await page.keyboard.type("math.ts");
  await expect.poll(async () => Number(await list.getAttribute("data-count"))).toBeLessThan(allCount);
  const readRow = list.locator('[data-testid="timeline-event"][data-kind="tool"]');
  await expect(readRow).toHaveCount(1);
  await readRow.click();
  const detail = page.getByTestId("timeline-detail");
  await expect(detail).toHaveAttribute("data-kind", "tool");
  await expect(detail.getByTestId("timeline-detail-output")).toContainText("export const add");
  await expect(detail.getByTestId("timeline-detail-input")).toContainText("math.ts");
  // Keyboard: Escape closes the detail, Enter opens it again.
  await list.focus();
  await page.keyboard.press("Escape");
  await expect(detail).toHaveAttribute("data-empty", "true");
  await page.keyboard.press("Enter");
  await expect(detail).toHaveAttribute("data-kind", "tool");

  // Export: one HTML file that renders with every request refused.
  const download = page.waitForEvent("download");
  await page.getByTestId("timeline-export").click();
  const file = await (await download).path();
  const html = readFileSync(file, "utf8");
  expect(html).toContain("Content-Security-Policy");
  expect(html).not.toMatch(/<(script|link|img)[^>]+(src|href)=/i);
  const offline = await browser.newContext({ offline: true });
  const requests: string[] = [];
  await offline.route("**/*", async (route) => {
    requests.push(route.request().url());
    await route.abort();
  });
  try {
    const exported = await offline.newPage();
    await exported.setContent(html);
    await expect(exported.getByTestId("timeline")).toHaveAttribute("data-timing-known", "true");
    await expect(exported.locator('[data-testid="timeline-bar"][data-kind="tool"]')).toHaveCount(2);
    await exported.locator('[data-testid="timeline-event"][data-kind="tool"]').first().click();
    await expect(exported.getByTestId("timeline-detail-output")).not.toBeEmpty();
    // The search texts travel in the file too: the same search finds the same call, and its details open.
    const exportedList = exported.getByTestId("timeline-event-list");
    await exported.getByTestId("timeline-search").fill("math.ts");
    await expect(exportedList.locator('[data-testid="timeline-event"][data-kind="tool"]')).toHaveCount(1);
    await exportedList.locator('[data-testid="timeline-event"][data-kind="tool"]').click();
    await expect(exported.getByTestId("timeline-detail-output")).toContainText("export const add");
    expect(requests).toEqual([]);
  } finally {
    await offline.close();
  }
});

test("timeline: an uploaded Claude Code transcript opens with the no-durations notice", async ({ ide: page, e2e }) => {
  await page.goto(`${e2e.url}/timeline/import`);
  await page.getByTestId("timeline-upload-input").setInputFiles(claudeCodeFixture);
  await page.waitForURL(/\/sessions\/[^/]+\/timeline/);
  await expect(page.getByTestId("timeline")).toHaveAttribute("data-timing-known", "false");
  await expect(page.getByTestId("timeline-no-durations")).toContainText("no durations");
  // Every tool call is a point at its line's time: nothing drawn as a duration.
  const tools = page.locator('[data-testid="timeline-bar"][data-kind="tool"]');
  await expect(tools).not.toHaveCount(0);
  expect(await page.locator('[data-testid="timeline-bar"][data-kind="tool"]:not([data-point="true"])').count()).toBe(0);
  await page.getByTestId("timeline-filter-tool").selectOption("Edit");
  const edit = page.locator('[data-testid="timeline-event"][data-tool-name="Edit"]');
  await expect(edit).toHaveCount(1);
  await edit.click();
  await expect(page.getByTestId("timeline-detail-diff")).toBeVisible();
  await screenshot(page, "timeline-imported");
});

test("timeline: a large session shows its first events at once, then adds the rest in pages until it is whole", async ({ ide: page, e2e }) => {
  // 6,000 events: more than the first part (500), so the rest comes as a page.
  const source = syntheticTimelineSource({ events: 6_000, sidechains: 0 });
  const jsonl = source.lines.map((line) => JSON.stringify(line)).join("\n");
  await page.goto(`${e2e.url}/timeline/import`);
  await page.getByTestId("timeline-upload-input").setInputFiles({ name: "large.jsonl", mimeType: "application/x-ndjson", buffer: Buffer.from(jsonl) });
  await page.waitForURL(/\/sessions\/[^/]+\/timeline/);
  await expect(page.getByTestId("timeline-page")).toHaveAttribute("data-complete", "true", { timeout: 60_000 });
  const events = Number(await page.getByTestId("timeline").getAttribute("data-events"));
  expect(events).toBeGreaterThan(2_000);
  await expect(page.getByTestId("timeline-loading-more")).toHaveCount(0);
  // Thousands of marks at this zoom: drawn on one canvas; a click on a mark of the model lane opens that model call.
  await expect(page.getByTestId("timeline-axis")).toHaveAttribute("data-drawn-on", "canvas");
  await expect(page.locator('[data-testid="timeline-bar"]')).toHaveCount(0);
  const canvas = page.getByTestId("timeline-canvas");
  await expect(canvas).toHaveAttribute("data-drawn", "true");
  expect(Number(await canvas.getAttribute("data-marks"))).toBeGreaterThan(400);
  const modelLane = (await page.locator('[data-testid="timeline-lane"][data-lane="model"] rect').first().boundingBox())!;
  const canvasBox = (await canvas.boundingBox())!;
  await page.mouse.click(canvasBox.x + canvasBox.width / 2, modelLane.y + modelLane.height / 2);
  await expect(page.locator('[data-testid="timeline-detail"][data-loaded="true"]')).toHaveAttribute("data-kind", "model");
  // Reloaded, the page gets the built timeline from the server's cache: first part, then the page, the same events.
  await page.reload();
  await expect(page.getByTestId("timeline-page")).toHaveAttribute("data-complete", "true", { timeout: 60_000 });
  expect(Number(await page.getByTestId("timeline").getAttribute("data-events"))).toBe(events);
  // An event at the end of the list (from the page, not the first part) opens with its details from the server.
  await page.getByTestId("timeline-event-list").evaluate((list) => (list.scrollTop = list.scrollHeight));
  await page.getByTestId("timeline-event").last().click();
  const detail = page.locator('[data-testid="timeline-detail"][data-loaded="true"]');
  await expect(detail).toBeVisible();
  expect(Number(await detail.getAttribute("data-index"))).toBeGreaterThan(2_000);
});

test("timeline: the page's first request leaves while its scripts still load, the page uses its answer and the first details it carries", async ({
  ide: page,
  e2e,
}) => {
  await page.goto(`${e2e.url}/timeline/import`);
  await page.getByTestId("timeline-upload-input").setInputFiles(claudeCodeFixture);
  await page.waitForURL(/\/sessions\/[^/]+\/timeline/);
  await expect(page.getByTestId("timeline")).toHaveAttribute("data-timing-known", "false");
  // The page's scripts are held until the timeline is asked for (or 10 s): only the inline script can ask meanwhile.
  const firstLooks: string[] = [];
  let viewAsked: () => void = () => undefined;
  const asked = new Promise<void>((resolve) => {
    viewAsked = resolve;
  });
  page.on("request", (request) => {
    const url = new URL(request.url());
    if (url.pathname !== "/api/trpc/timeline.view" || url.searchParams.get("input")?.includes("knownVersion")) return;
    firstLooks.push(request.url());
    viewAsked();
  });
  let heldUntilAsked = true;
  // The page's own script (public/timeline-app.js): the timeline page is not a Next page and loads no Next chunk.
  const nextChunks: string[] = [];
  page.on("request", (request) => {
    if (new URL(request.url()).pathname.startsWith("/_next/")) nextChunks.push(request.url());
  });
  // Named by its content (`?v=`), it is kept for good: a revalidated script would lose V8's compiled code each time.
  const scriptCaching: string[] = [];
  page.on("response", (response) => {
    if (new URL(response.url()).pathname === "/timeline-app.js")
      scriptCaching.push(`${new URL(response.url()).searchParams.has("v")} ${response.headers()["cache-control"]}`);
  });
  await page.route(/\/timeline-app\.js(\?|$)/, async (route) => {
    const timedOut = await Promise.race([asked.then(() => false), new Promise<boolean>((resolve) => setTimeout(() => resolve(true), 10_000))]);
    if (timedOut) heldUntilAsked = false;
    await route.continue();
  });
  await page.reload();
  await expect(page.getByTestId("timeline")).toHaveAttribute("data-timing-known", "false");
  await expect(page.getByTestId("timeline-event")).not.toHaveCount(0);
  expect(heldUntilAsked).toBe(true);
  expect(nextChunks).toEqual([]);
  expect(scriptCaching).toEqual(["true public, max-age=31536000, immutable"]);
  // One first look: the page took the inline request's answer instead of asking again.
  expect(firstLooks).toHaveLength(1);
  // The first event's details came with it: opening it asks nothing more.
  const detailRequests: string[] = [];
  page.on("request", (request) => {
    if (new URL(request.url()).pathname.includes("timeline.detail")) detailRequests.push(request.url());
  });
  await page.getByTestId("timeline-event-list").focus();
  await page.keyboard.press("ArrowDown");
  await expect(page.locator('[data-testid="timeline-detail"][data-loaded="true"]')).toHaveAttribute("data-index", "0");
  expect(detailRequests).toEqual([]);
  // The IDE's own page is not fetched ahead from here (its scripts would compete with the timeline's first moves).
  await page.unrouteAll({ behavior: "wait" });
  const prefetched: string[] = [];
  page.on("request", (request) => {
    if (new URL(request.url()).searchParams.has("_rsc")) prefetched.push(request.url());
  });
  await page.reload();
  await expect(page.getByTestId("timeline-event")).not.toHaveCount(0);
  await page.waitForTimeout(1_000);
  expect(prefetched).toEqual([]);
});
