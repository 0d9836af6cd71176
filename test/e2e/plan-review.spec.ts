import { expect, screenshot, startNewSession, test } from "./support/fixtures.ts";

type Body = { model: string; messages: Array<{ role: string; content: unknown }> };

test("reviews the agent's plan: comments send it back to planning, then approve into acceptEdits", async ({ ide: page, sim }) => {
  await sim.script([
    {
      content: [
        { type: "tool_use", id: "toolu_plan_1", name: "ExitPlanMode", input: { plan: "## Plan\n\n1. Rename `greet` to `welcome`\n2. Update the callers" } },
      ],
    },
    {
      content: [
        {
          type: "tool_use",
          id: "toolu_plan_2",
          name: "ExitPlanMode",
          input: { plan: "## Plan v2\n\n1. Rename `greet` to `welcome`\n2. Update the callers\n3. Handle an empty name" },
        },
      ],
    },
    { content: [{ type: "text", text: "Plan approved; implementing it now." }] },
  ]);
  await startNewSession(page);
  await page.getByTestId("mode-select").selectOption("plan");
  await page.getByTestId("chat-input").fill("Plan a rename of greet");
  await page.getByTestId("chat-input").press("Enter");

  const card = page.getByTestId("plan-review");
  await expect(card).toBeVisible();
  await expect(card.getByRole("heading", { name: "Plan" })).toBeVisible();
  await expect(card).toContainText("Update the callers");
  await screenshot(page, "plan-review");

  await card.getByTestId("plan-comments").fill("Also handle an empty name.");
  await card.getByTestId("plan-revise").click();

  await expect(page.getByTestId("plan-review")).toContainText("Handle an empty name");
  await expect(page.getByTestId("mode-select")).toHaveValue("plan");
  await page.getByTestId("plan-approve-accept-edits").click();

  await expect(page.getByTestId("plan-review")).toBeHidden();
  await expect(page.getByTestId("message-assistant").last()).toContainText("Plan approved; implementing it now.");
  await expect(page.getByTestId("mode-select")).toHaveValue("acceptEdits");

  const bodies = (await sim.requests()).filter((request) => request.path === "/v1/messages").map((request) => JSON.stringify((request.body as Body).messages));
  expect(bodies).toHaveLength(3);
  // Every request made while planning carries the plan-mode reminder; the comment went back with the refusal.
  expect(bodies[0]).toContain("Plan mode is active");
  expect(bodies[1]).toContain("Also handle an empty name.");
  expect(bodies[1]).toContain("keep planning");
  expect(bodies[2]).toContain("User has approved your plan");
});

test("approves a plan into default mode", async ({ ide: page, sim }) => {
  await sim.script([
    { content: [{ type: "tool_use", id: "toolu_plan", name: "ExitPlanMode", input: { plan: "1. Do the thing" } }] },
    { content: [{ type: "text", text: "Doing the thing." }] },
  ]);
  await startNewSession(page);
  await page.getByTestId("mode-select").selectOption("plan");
  await page.getByTestId("chat-input").fill("Plan the thing");
  await page.getByTestId("chat-input").press("Enter");
  await page.getByTestId("plan-approve").click();
  await expect(page.getByTestId("message-assistant").last()).toContainText("Doing the thing.");
  await expect(page.getByTestId("mode-select")).toHaveValue("default");
});
