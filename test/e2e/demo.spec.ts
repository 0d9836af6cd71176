import { realpathSync, rmSync } from "node:fs";
import { expect, openIde, screenshot, test } from "./support/fixtures.ts";
import { startCairn, tempDir, type CairnProcess } from "./support/servers.ts";
import { writeWorkspace } from "./support/workspace-fixture.ts";

let demo: CairnProcess | undefined;

test.beforeAll(async () => {
  const workspace = realpathSync(tempDir("cairn-e2e-demo-ws-"));
  writeWorkspace(workspace, { "hello.txt": "hi\n" });
  demo = await startCairn({ workspace });
});

test.afterAll(async () => {
  await demo?.stop();
  if (demo) for (const dir of [demo.workspace, demo.cairnHome]) rmSync(dir, { recursive: true, force: true });
});

test("without ANTHROPIC_API_KEY a banner says the offline demo model answers, and how to set a key", async ({ page }) => {
  await openIde(page, demo!.loginUrl);
  const banner = page.getByTestId("demo-banner");
  await expect(banner).toBeVisible();
  await expect(banner).toContainText("demo model");
  await expect(banner).toContainText("ANTHROPIC_API_KEY");

  await page.getByTestId("chat-input").fill("hello there");
  await page.getByTestId("chat-input").press("Enter");
  await expect(page.getByTestId("message-assistant").first()).toContainText("[Demo model]");
  await screenshot(page, "demo-banner");
});
