/// <reference lib="dom" />
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import type { Browser, BrowserContext, Page } from "@playwright/test";
import { expect, screenshot, test } from "./support/fixtures.ts";

type XssWindow = Window & { __xss?: unknown };

const IMG = "<img src=x onerror=window.__xss=1>";
const SCRIPT = "<script>window.__xss=1</script>";
// Shaped like an Anthropic key; it must never reach a viewer.
const SECRET = `sk-ant-api03-${"Zq8vR2nT5wXk".repeat(6)}AA`;

/** Makes a link from the IDE's session bar; returns its address and id. The preview must have been read first. */
async function createShare(page: Page, mode: "live" | "snapshot"): Promise<{ url: string; shareId: string }> {
  await page.getByTestId("share-button").click();
  const dialog = page.getByTestId("share-dialog");
  await expect(dialog).toBeVisible();
  await dialog.getByTestId(`share-mode-${mode}`).check();
  await expect(dialog.getByTestId("share-expiry")).toHaveValue("30");
  await expect(dialog.getByTestId("share-preview")).toBeVisible();
  await dialog.getByTestId("share-create").click();
  const field = dialog.getByTestId("share-url");
  await expect(field).toHaveValue(/\/share\/\S+$/);
  const url = await field.inputValue();
  const shareId = await dialog.getByTestId("share-created").getAttribute("data-share-id");
  expect(url.startsWith(new URL(page.url()).origin)).toBe(true);
  expect(shareId).toBeTruthy();
  await dialog.getByTestId("share-done").click();
  return { url, shareId: shareId! };
}

/** A browser with no access cookie; every request it makes to the main API is recorded (there must be none). */
async function viewerContext(browser: Browser): Promise<{ context: BrowserContext; page: Page; mainApiRequests: string[] }> {
  const context = await browser.newContext();
  const mainApiRequests: string[] = [];
  context.on("request", (request) => {
    if (new URL(request.url()).pathname.startsWith("/api/trpc")) mainApiRequests.push(request.url());
  });
  return { context, page: await context.newPage(), mainApiRequests };
}

/** Nothing on a shared page can send, answer, switch or edit. */
async function expectReadOnly(page: Page): Promise<void> {
  await expect(page.getByTestId("share-readonly")).toHaveText("read-only");
  for (const testId of [
    "chat-input",
    "chat-send",
    "chat-interrupt",
    "permission-prompt",
    "permission-allow-once",
    "permission-deny",
    "mode-select",
    "model-input",
    "file-tree",
    "editor",
    "terminal",
    "session-fork",
  ]) {
    await expect(page.getByTestId(testId), testId).toHaveCount(0);
  }
  await expect(page.locator("textarea")).toHaveCount(0);
  await expect(page.locator('input:not([type="radio"]):not([readonly])')).toHaveCount(0);
}

test("a snapshot link: the preview lists the secret, a browser without the cookie reads the transcript as text with the secret redacted, rotate and revoke end old links", async ({
  ide: page,
  e2e,
  sim,
  browser,
}) => {
  const file = join(e2e.workspace, "notes", `${IMG}.txt`);
  writeFileSync(file, `first line ${SCRIPT}\nsecond line ${IMG}\n`);
  await sim.script([
    {
      content: [
        { type: "text", text: `Model text ${SCRIPT} and ${IMG} here.` },
        { type: "tool_use", name: "Read", input: { file_path: file } },
      ],
    },
    { content: [{ type: "text", text: "Read the notes file." }] },
  ]);
  const prompt = `Check ${IMG} and use the key ${SECRET} please`;
  await page.getByTestId("chat-input").fill(prompt);
  await page.getByTestId("chat-input").press("Enter");
  await expect(page.getByTestId("run-result")).toHaveAttribute("data-reason", "completed");

  // The owner sees which secrets will be replaced before the link exists.
  await page.getByTestId("share-button").click();
  const preview = page.getByTestId("share-preview");
  await expect(preview).toBeVisible();
  await expect(preview.locator('[data-testid="share-redaction"][data-kind*="anthropic"]')).toHaveAttribute("data-count", "1");
  await screenshot(page, "share-dialog-preview");
  await page.keyboard.press("Escape");
  await expect(page.getByTestId("share-dialog")).toHaveCount(0);
  const first = await createShare(page, "snapshot");

  const viewer = await viewerContext(browser);
  try {
    const response = await viewer.page.goto(first.url);
    expect(response?.status()).toBe(200);
    await expect(viewer.page.getByTestId("share-view")).toBeVisible();
    await expect(viewer.page.getByTestId("share-title")).not.toBeEmpty();
    await expectReadOnly(viewer.page);
    const user = viewer.page.getByTestId("message-user");
    await expect(user).toContainText("[REDACTED:");
    await expect(user).toContainText(`Check ${IMG} and use the key`);
    await expect(viewer.page.getByTestId("share-transcript")).not.toContainText("sk-ant-api03");
    // The title is the session's first prompt cut to a length: the part of the key it keeps must not show either.
    await expect(viewer.page.getByTestId("share-title"), "the title shows no part of the key").not.toContainText("sk-ant-api03");
    const answer = viewer.page.getByTestId("message-assistant").first();
    await expect(answer).toContainText(`Model text ${SCRIPT} and ${IMG} here.`);
    const read = viewer.page.locator('[data-testid="tool-call"][data-tool-name="Read"]');
    await expect(read).toContainText(`${IMG}.txt`);
    await expect(read.getByTestId("tool-result")).toContainText(`first line ${SCRIPT}`);
    await expect(viewer.page.getByTestId("share-transcript").locator("img, script")).toHaveCount(0);
    expect(await viewer.page.evaluate(() => (window as XssWindow).__xss)).toBeUndefined();
    await screenshot(viewer.page, "share-snapshot-view");

    // The timeline of the shared part, from the share router too.
    await viewer.page.getByTestId("share-tab-timeline").click();
    await expect(viewer.page.getByTestId("timeline")).toBeVisible();
    await expect(viewer.page.locator('[data-testid="timeline-event"]').first()).toBeVisible();
    await expect(viewer.page.getByTestId("share-timeline")).not.toContainText("sk-ant-api03");
    expect(await viewer.page.evaluate(() => (window as XssWindow).__xss)).toBeUndefined();
    await screenshot(viewer.page, "share-timeline");
    await viewer.page.getByTestId("share-tab-conversation").click();

    // A copy needs a browser signed in to this server; this one is told so.
    await viewer.page.getByTestId("share-fork").click();
    await expect(viewer.page.getByTestId("share-fork-signin")).toContainText("signed in to this Cairn server");

    // Rotating: the old address stops, the new one (shown once) works.
    await page.goto(new URL("/shares", page.url()).toString());
    await expect(page.getByTestId("shares-page")).toBeVisible();
    const row = page.locator(`[data-testid="share-row"][data-share-id="${first.shareId}"]`);
    await expect(row).toHaveAttribute("data-status", "active");
    await expect(row.getByTestId("share-views")).not.toHaveText("0");
    await row.getByTestId("share-rotate").click();
    await row.getByTestId("share-rotate-confirm").click();
    const rotatedField = page.locator(`[data-testid="share-rotated"][data-share-id="${first.shareId}"] [data-testid="share-url"]`);
    await expect(rotatedField).toHaveValue(/\/share\/\S+$/);
    const rotated = await rotatedField.inputValue();
    expect(rotated).not.toBe(first.url);
    const stale = await viewer.page.reload();
    expect(stale?.status()).toBe(404);
    await expect(viewer.page.getByTestId("share-not-found")).toBeVisible();
    await viewer.page.goto(rotated);
    await expect(viewer.page.getByTestId("message-assistant").first()).toContainText("Model text");

    // Revoking: the link is gone for good.
    await row.getByTestId("share-revoke").click();
    await row.getByTestId("share-revoke-confirm").click();
    await expect(row).toHaveAttribute("data-status", "revoked");
    await screenshot(page, "shares-page");
    const revoked = await viewer.page.reload();
    expect(revoked?.status()).toBe(404);
    await expect(viewer.page.getByTestId("share-not-found")).toHaveText(/This link is not available/);
    await expect(viewer.page.getByTestId("message-user")).toHaveCount(0);
    expect(await viewer.page.evaluate(() => (window as XssWindow).__xss)).toBeUndefined();
    // Something that cannot be a token is a plain 404 from the server.
    const bogus = await viewer.page.goto(new URL("/share/not-a-token", first.url).toString());
    expect(bogus?.status()).toBe(404);
    await expect(viewer.page.getByTestId("share-not-found")).toBeVisible();
    expect(viewer.mainApiRequests, "a shared page calls the main API only for Continue as copy").toHaveLength(1);
  } finally {
    await viewer.context.close();
  }
});

test("a live link follows the session while it runs, a signed-in viewer continues it as a copy in the IDE, and revoking it ends the open view", async ({
  ide: page,
  sim,
  browser,
}) => {
  // Many short lines: a live share lets streamed text out a complete line at a time (a key may span two deltas).
  const filler = Array.from({ length: 200 }, (_, index) => `word${index + 1}${index % 10 === 9 ? "\n" : " "}`).join("");
  await sim.script([
    { content: [{ type: "text", text: "The first answer." }] },
    { chunkDelayMs: 30, content: [{ type: "text", text: `The second answer streams live.\n${filler}END-OF-SECOND` }] },
  ]);
  await page.getByTestId("chat-input").fill("first question");
  await page.getByTestId("chat-input").press("Enter");
  await expect(page.getByTestId("run-result")).toHaveAttribute("data-reason", "completed");
  const sessionId = await page.getByTestId("chat").getAttribute("data-session-id");
  const share = await createShare(page, "live");

  const viewer = await viewerContext(browser);
  try {
    await viewer.page.goto(share.url);
    await expect(viewer.page.getByTestId("share-view")).toHaveAttribute("data-mode", "live");
    await expect(viewer.page.getByTestId("share-live")).toHaveAttribute("data-status", "live");
    await expect(viewer.page.getByTestId("message-assistant")).toHaveCount(1);
    await expectReadOnly(viewer.page);

    // The owner sends a prompt: the viewer sees it, and the answer while it streams.
    await page.getByTestId("chat-input").fill("second question");
    await page.getByTestId("chat-input").press("Enter");
    await expect(viewer.page.getByTestId("message-user").nth(1)).toHaveText("second question");
    await expect(viewer.page.locator('[data-testid="message-assistant"][data-streaming="true"]')).toContainText("The second answer streams live.");
    await expect(viewer.page.getByTestId("message-assistant").nth(1)).toContainText("END-OF-SECOND", { timeout: 60_000 });
    await expect(viewer.page.getByTestId("share-view")).toHaveAttribute("data-running", "false");
    await expectReadOnly(viewer.page);
    expect(viewer.mainApiRequests).toEqual([]);
    await screenshot(viewer.page, "share-live-view");

    // The owner's browser is signed in: "Continue as copy" makes a new session and opens it in the IDE.
    await page.goto(share.url);
    await page.getByTestId("share-fork").click();
    await expect(page.getByTestId("ide")).toBeVisible();
    const chat = page.getByTestId("chat");
    await expect(chat).toHaveAttribute("data-session-id", /.+/);
    expect(await chat.getAttribute("data-session-id")).not.toBe(sessionId);
    await expect(page.getByTestId("message-user").first()).toHaveText("first question");
    await expect(page.getByTestId("message-assistant").nth(1)).toContainText("END-OF-SECOND");
    expect(new URL(page.url()).searchParams.get("session")).toBeNull();

    // Revoked while the viewer watches: the open page says the link is gone, without a reload.
    await page.goto(new URL("/shares", page.url()).toString());
    const row = page.locator(`[data-testid="share-row"][data-share-id="${share.shareId}"]`);
    await row.getByTestId("share-revoke").click();
    await row.getByTestId("share-revoke-confirm").click();
    await expect(row).toHaveAttribute("data-status", "revoked");
    await expect(viewer.page.getByTestId("share-not-found")).toBeVisible();
    await expect(viewer.page.getByTestId("message-assistant")).toHaveCount(0);
  } finally {
    await viewer.context.close();
  }
});
