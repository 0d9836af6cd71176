import { rmSync } from "node:fs";
import { join } from "node:path";
import type { Page } from "@playwright/test";
import { expect, startNewSession, test } from "./support/fixtures.ts";

type Shown = { title: string; body: string; tag: string };
type Stubbed = { __notifications: Shown[]; __setHidden(hidden: boolean): void; __permissionAsked: number };

/**
 * In the page only: a Notification API that records what it is asked to show (granting permission when
 * asked), and a document whose visibility the test switches.
 */
async function stubBrowser(page: Page): Promise<void> {
  await page.addInitScript(() => {
    const state = window as unknown as Stubbed;
    state.__notifications = [];
    state.__permissionAsked = 0;
    let permission: NotificationPermission = "default";
    class RecordingNotification {
      static get permission() {
        return permission;
      }
      static async requestPermission() {
        state.__permissionAsked += 1;
        permission = "granted";
        return permission;
      }
      onclick: (() => void) | null = null;
      constructor(title: string, options: { body?: string; tag?: string } = {}) {
        state.__notifications.push({ title, body: options.body ?? "", tag: options.tag ?? "" });
      }
      close() {}
    }
    Object.defineProperty(window, "Notification", { value: RecordingNotification, configurable: true, writable: true });
    let hidden = false;
    Object.defineProperty(document, "visibilityState", { get: () => (hidden ? "hidden" : "visible"), configurable: true });
    Object.defineProperty(document, "hidden", { get: () => hidden, configurable: true });
    state.__setHidden = (next) => {
      hidden = next;
      document.dispatchEvent(new Event("visibilitychange"));
    };
  });
}

const shown = (page: Page) => page.evaluate(() => (window as unknown as Stubbed).__notifications);
const setHidden = (page: Page, hidden: boolean) => page.evaluate((value) => (window as unknown as Stubbed).__setHidden(value), hidden);

async function send(page: Page, prompt: string): Promise<void> {
  await page.getByTestId("chat-input").fill(prompt);
  await page.getByTestId("chat-input").press("Enter");
}

test("notifications: with the tab hidden, a waiting permission prompt, an ended run and an error show in the title and as notifications", async ({
  page,
  e2e,
  sim,
}) => {
  await stubBrowser(page);
  await page.goto(e2e.loginUrl);
  await expect(page.getByTestId("ide")).toBeVisible();
  const decline = page.getByTestId("trust-decline");
  if (await decline.isVisible()) await decline.click();
  await expect(page).toHaveTitle("Cairn");

  await expect(page.getByTestId("notify-toggle")).not.toBeChecked();
  await page.getByTestId("notify-toggle").check();
  expect(await page.evaluate(() => (window as unknown as Stubbed).__permissionAsked)).toBe(1);

  const file = join(e2e.workspace, "notify-note.txt");
  rmSync(file, { force: true }); // left by an earlier run: Write would refuse an existing file it has not read
  await sim.script([
    { content: [{ type: "tool_use", name: "Write", input: { file_path: file, content: "noted\n" } }] },
    { content: [{ type: "text", text: "Wrote the note." }] },
    { content: [], faults: [{ kind: "http", status: 400, message: "scripted failure for the notification test" }] },
  ]);
  await startNewSession(page);
  await setHidden(page, true);
  await send(page, "Write a note");

  // 1. A permission prompt is waiting.
  await expect(page.getByTestId("permission-prompt")).toBeVisible();
  await expect(page).toHaveTitle("(1) Cairn");
  await expect.poll(() => shown(page)).toEqual([{ title: "Cairn needs your permission", body: "The agent wants to use Write.", tag: "cairn-permission" }]);

  // 2. The run ends (answered from the hidden tab, as a test can).
  await page.getByTestId("permission-allow-once").click();
  await expect(page.getByTestId("message-assistant").last()).toContainText("Wrote the note.");
  await expect(page).toHaveTitle("(2) Cairn");
  await expect.poll(async () => (await shown(page)).at(-1)).toEqual({ title: "Cairn finished", body: "The agent's run has ended.", tag: "cairn-ended" });

  // 3. An error stops the next run.
  await send(page, "Once more");
  await expect(page).toHaveTitle("(3) Cairn");
  await expect.poll(async () => (await shown(page)).at(-1)).toMatchObject({ title: "Cairn stopped on an error", tag: "cairn-error" });
  expect((await shown(page)).at(-1)?.body).toContain("scripted failure for the notification test");
  expect(await shown(page)).toHaveLength(3);

  // Showing the tab clears the badge; nothing is counted or shown while it is visible.
  await setHidden(page, false);
  await expect(page).toHaveTitle("Cairn");
  await sim.script([{ content: [{ type: "text", text: "Visible run." }] }]);
  await send(page, "While you watch");
  await expect(page.getByTestId("message-assistant").last()).toContainText("Visible run.");
  await expect(page.getByTestId("chat")).toHaveAttribute("data-running", "false");
  await expect(page).toHaveTitle("Cairn");
  expect(await shown(page)).toHaveLength(3);

  // The setting is kept per browser; turned off, the title still counts but nothing is shown.
  await page.reload();
  await expect(page.getByTestId("notify-toggle")).toBeChecked();
  await page.getByTestId("notify-toggle").uncheck();
  await sim.script([{ content: [{ type: "text", text: "Quiet run." }] }]);
  await setHidden(page, true);
  await send(page, "Quietly");
  await expect(page).toHaveTitle("(1) Cairn");
  await expect(page.getByTestId("message-assistant").last()).toContainText("Quiet run.");
  expect(await shown(page)).toEqual([]);
});
