import { expect, screenshot, test } from "./support/fixtures.ts";

test("the terminal runs a shell in the workspace and echoes a command's output", async ({ ide: page, e2e }) => {
  await page.getByTestId("terminal-toggle").click();
  const screen = page.getByTestId("terminal-screen");
  await expect(screen).toHaveAttribute("data-terminal-id", /.+/);
  await expect(page.locator(".xterm-wrap")).toHaveAttribute("data-status", "ready");
  await screen.click();
  await page.keyboard.type("echo cairn-$((40+2)) && pwd");
  await page.keyboard.press("Enter");
  const rows = screen.locator(".xterm-rows");
  await expect(rows).toContainText("cairn-42");
  await expect(rows).toContainText(e2e.workspace);
  await screenshot(page, "terminal");
});
