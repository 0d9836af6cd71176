import { expect, startNewSession, test } from "./support/fixtures.ts";

type Body = { model: string; system?: Array<{ text: string }>; messages: Array<{ role: string; content: unknown }> };

/** A Bash call no rule allows and that is not read-only, so default mode asks and auto mode consults its classifier. */
const nodeCall = (id: string, marker: string) => ({ type: "tool_use" as const, id, name: "Bash", input: { command: `node -e "console.log('${marker}')"` } });

test("after a denial the chat offers a rule; allowing it lets the same command run without asking", async ({ ide: page, sim }) => {
  await sim.script([
    { content: [nodeCall("toolu_sugg_1", "suggested-rule-ran")] },
    { content: [{ type: "text", text: "Understood, I did not run it." }] },
    { content: [nodeCall("toolu_sugg_2", "suggested-rule-ran")] },
    { content: [{ type: "text", text: "It ran this time." }] },
  ]);
  await startNewSession(page);
  await expect(page.getByTestId("mode-select")).toHaveValue("default");
  await page.getByTestId("chat-input").fill("Run the node one-liner");
  await page.getByTestId("chat-input").press("Enter");

  await expect(page.getByTestId("permission-prompt")).toHaveAttribute("data-tool-name", "Bash");
  await page.getByTestId("permission-deny").click();
  const suggestion = page.getByTestId("rule-suggestion");
  await expect(suggestion).toBeVisible();
  await expect(suggestion).toContainText("Bash was denied once");
  const rule = await suggestion.getAttribute("data-rule");
  expect(rule).toMatch(/^Bash\(node/);
  await expect(page.getByTestId("message-assistant").last()).toContainText("Understood, I did not run it.");

  await suggestion.getByTestId("rule-suggestion-allow").click();
  await expect(suggestion.getByTestId("rule-suggestion-added")).toContainText(`Added: ${rule}`);
  await expect(suggestion).toHaveAttribute("data-state", "added");

  await page.getByTestId("chat-input").fill("Try it again");
  await page.getByTestId("chat-input").press("Enter");
  await expect(page.getByTestId("message-assistant").last()).toContainText("It ran this time.");
  await expect(page.getByTestId("permission-prompt")).toHaveCount(0);
  const card = page.locator('[data-testid="tool-call"][data-tool-name="Bash"]').last();
  await expect(card).toHaveAttribute("data-status", "completed");
  await expect(card.getByTestId("tool-decision")).toContainText(rule!);
  await expect(card).toContainText("suggested-rule-ran");
});

test("choosing auto in the mode picker: the classifier decides with no prompt, and its request counts in the session cost", async ({ ide: page, sim }) => {
  await sim.script([
    { content: [nodeCall("toolu_auto_1", "auto-mode-ran")] },
    {
      match: { systemIncludes: "permission classifier" },
      content: [{ type: "tool_use", name: "permission_verdict", input: { decision: "allow", reason: "prints a line the user asked for" } }],
      usage: { input_tokens: 500_000, output_tokens: 20 },
    },
    { content: [{ type: "text", text: "Auto mode let it run." }] },
  ]);
  await startNewSession(page);
  await page.getByTestId("mode-select").selectOption("auto");
  await expect(page.getByTestId("mode-select")).toHaveValue("auto");
  await page.getByTestId("chat-input").fill("Print the line");
  await page.getByTestId("chat-input").press("Enter");

  await expect(page.getByTestId("message-assistant").last()).toContainText("Auto mode let it run.");
  await expect(page.getByTestId("permission-prompt")).toHaveCount(0);
  const card = page.locator('[data-testid="tool-call"][data-tool-name="Bash"]').last();
  await expect(card).toHaveAttribute("data-status", "completed");
  await expect(card.getByTestId("tool-decision")).toContainText("classifier auto-mode: prints a line the user asked for");
  await expect(card).toContainText("auto-mode-ran");
  await expect(page.getByTestId("session-cost")).toHaveAttribute("data-classifier-requests", "1");

  const requests = (await sim.requests()).filter((request) => request.path === "/v1/messages").map((request) => request.body as Body);
  const classifier = requests.filter((body) => JSON.stringify(body.system ?? "").includes("permission classifier"));
  expect(classifier).toHaveLength(1);
  expect(JSON.stringify(classifier[0]!.messages)).toContain("auto-mode-ran");
  // The mode stays auto for the session.
  await expect(page.getByTestId("mode-select")).toHaveValue("auto");
});
