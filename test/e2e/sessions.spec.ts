import { expect, screenshot, test } from "./support/fixtures.ts";

test("sessions: new, resume from the list, fork, and the mode and model switches stick", async ({ ide: page, sim }) => {
  await sim.script([
    { content: [{ type: "text", text: "Answer in the first session." }] },
    { content: [{ type: "text", text: "<summary>The user asked a first question and got an answer.</summary>" }] },
    { content: [{ type: "text", text: "Answer in the second session." }] },
  ]);

  await page.getByTestId("chat-input").fill("first question");
  await page.getByTestId("chat-input").press("Enter");
  await expect(page.getByTestId("message-assistant")).toContainText("Answer in the first session.");
  await expect(page.getByTestId("chat")).toHaveAttribute("data-running", "false");
  const first = await page.getByTestId("chat").getAttribute("data-session-id");
  expect(first).toBeTruthy();
  const meter = page.getByTestId("context-meter");
  await expect(meter).toHaveAttribute("data-tokens", /^\d+$/);

  // Compacting by hand marks the boundary in the chat and on the context meter.
  await page.getByTestId("context-compact").click();
  await expect(page.getByTestId("compact-boundary")).toContainText("Conversation compacted (manual)");
  await expect(meter).toHaveAttribute("data-compactions", "1");

  await page.getByTestId("mode-select").selectOption("acceptEdits");
  await page.getByTestId("model-input").fill("claude-test-model");
  await page.getByTestId("model-input").press("Enter");

  await page.getByTestId("session-new").click();
  await expect(page.getByTestId("chat")).not.toHaveAttribute("data-session-id", first!);
  await expect(page.getByTestId("message-assistant")).toHaveCount(0);
  await page.getByTestId("chat-input").fill("second question");
  await page.getByTestId("chat-input").press("Enter");
  await expect(page.getByTestId("message-assistant")).toContainText("Answer in the second session.");
  await expect(page.getByTestId("mode-select")).toHaveValue("default");

  await page.getByTestId("session-list-toggle").click();
  const items = page.getByTestId("session-list-item");
  await expect(page.locator(`[data-testid="session-list-item"][data-session-id="${first}"]`)).toContainText("first question");
  expect(await items.count()).toBeGreaterThanOrEqual(2);
  await screenshot(page, "session-list");
  await page.locator(`[data-testid="session-list-item"][data-session-id="${first}"]`).click();
  await expect(page.getByTestId("chat")).toHaveAttribute("data-session-id", first!);
  await expect(page.getByTestId("message-assistant")).toContainText("Answer in the first session.");
  await expect(page.getByTestId("mode-select")).toHaveValue("acceptEdits");
  await expect(page.getByTestId("model-input")).toHaveValue("claude-test-model");

  await page.getByTestId("session-fork").click();
  await expect(page.getByTestId("chat")).not.toHaveAttribute("data-session-id", first!);
  await expect(page.getByTestId("message-user").first()).toHaveText("first question");

  // Share and timeline belong to the session on screen (share.spec.ts drives them).
  const forked = await page.getByTestId("chat").getAttribute("data-session-id");
  await expect(page.getByTestId("share-button")).toBeEnabled();
  await expect(page.getByTestId("timeline-link")).toHaveAttribute("href", `/sessions/${forked}/timeline`);
});
