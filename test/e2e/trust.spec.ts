import { expect, screenshot, test } from "./support/fixtures.ts";

test("an untrusted workspace asks once, explains hooks and MCP servers, and remembers the answer", async ({ page, e2e }) => {
  await page.goto(e2e.loginUrl);
  const dialog = page.getByTestId("trust-dialog");
  await expect(dialog).toBeVisible();
  await expect(dialog).toContainText(e2e.workspace);
  await expect(dialog).toContainText("hooks");
  await expect(dialog).toContainText("MCP servers");
  await expect(page.locator(".sidebar-footer")).toContainText("untrusted workspace");
  await screenshot(page, "trust-dialog");

  await page.getByTestId("trust-accept").click();
  await expect(dialog).toBeHidden();
  await expect(page.locator(".sidebar-footer")).toContainText("· trusted workspace");

  // The server remembers it: a fresh browser is not asked again.
  const fresh = await page.context().browser()!.newContext();
  const other = await fresh.newPage();
  await other.goto(e2e.loginUrl);
  await expect(other.getByTestId("ide")).toBeVisible();
  await expect(other.locator(".sidebar-footer")).toContainText("· trusted workspace");
  await expect(other.getByTestId("trust-dialog")).toHaveCount(0);
  await fresh.close();
});
