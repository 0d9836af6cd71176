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

test("sessions: a message typed and sent while a new session loads is kept and sent once it has loaded", async ({ ide: page, sim }) => {
  await sim.script([{ content: [{ type: "text", text: "Answer to the early message." }] }]);
  const chat = page.getByTestId("chat");
  await expect(chat).toHaveAttribute("data-stream", /live|idle/);
  const before = (await chat.getAttribute("data-session-id")) ?? "";

  // Hold the new session's event stream so it stays loading while the user types.
  let release = () => {};
  const held = new Promise<void>((resolve) => {
    release = resolve;
  });
  await page.route("**/api/trpc/session.events**", async (route) => {
    await held;
    await route.continue();
  });
  await page.getByTestId("session-new").click();
  await expect(chat).not.toHaveAttribute("data-session-id", before);
  await expect(chat).toHaveAttribute("data-stream", "loading");

  const input = page.getByTestId("chat-input");
  await expect(input).toBeEditable();
  await input.fill("early message");
  await input.press("Enter");
  await expect(page.getByTestId("chat-send")).toHaveText("Sending…");
  await expect(page.getByTestId("message-user")).toHaveCount(0);

  release();
  await expect(chat).toHaveAttribute("data-stream", "live");
  await expect(page.getByTestId("message-user")).toHaveText(["early message"]);
  await expect(page.getByTestId("message-assistant")).toContainText("Answer to the early message.");
  await expect(input).toHaveValue("");
  await page.unroute("**/api/trpc/session.events**");
});
