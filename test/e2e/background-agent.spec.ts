import { expect, screenshot, type ScriptedTurn, startNewSession, test } from "./support/fixtures.ts";

type Body = { messages: Array<{ role: string; content: unknown }> };

/** A turn for requests whose first message includes `text` (the fixture's `ScriptedTurn` omits the simulator's `match` and `stall`). */
function turnFor(text: string, content: unknown[], stallMs?: number): ScriptedTurn {
  const turn = { match: { firstMessageIncludes: text }, content, ...(stallMs ? { faults: [{ kind: "stall", afterEvents: 1, ms: stallMs }] } : {}) };
  return turn as unknown as ScriptedTurn;
}

test("the session shows a background agent running, then done with its answer, which wakes the session", async ({ ide: page, sim }) => {
  const prompt = "Start a background survey of the workspace";
  const task = "Count the TypeScript files in the workspace and report the number";
  await sim.script([
    turnFor(prompt, [
      { type: "text", text: "Starting a survey in the background." },
      { type: "tool_use", id: "toolu_bg_agent", name: "Agent", input: { description: "Survey the workspace", prompt: task, run_in_background: true } },
    ]),
    // The subagent's answer is held, so the session is seen idle with the agent still running.
    turnFor(task, [{ type: "text", text: "Survey done: 3 TypeScript files." }], 5_000),
    turnFor(prompt, [{ type: "text", text: "The survey runs in the background; I will report when it is done." }]),
    turnFor(prompt, [{ type: "text", text: "The survey found 3 TypeScript files." }]),
  ]);
  await startNewSession(page);
  await page.getByTestId("chat-input").fill(prompt);
  await page.getByTestId("chat-input").press("Enter");

  const agent = page.getByTestId("background-agent");
  await expect(agent).toHaveCount(1);
  await expect(agent).toHaveAttribute("data-status", "running");
  await expect(agent).toContainText("Survey the workspace");
  await expect(agent.getByTestId("background-agent-status")).toHaveText("running");
  // The prompt that started it has ended while the agent works on.
  await expect(page.getByTestId("message-assistant").last()).toContainText("I will report when it is done.");
  await expect(page.getByTestId("chat")).toHaveAttribute("data-running", "false");
  await expect(agent).toHaveAttribute("data-status", "running");
  await screenshot(page, "background-agent-running");

  await expect(agent).toHaveAttribute("data-status", "completed", { timeout: 30_000 });
  await expect(agent.getByTestId("background-agent-status")).toContainText("done");
  await expect(agent.getByTestId("background-agent-result")).toHaveText("Survey done: 3 TypeScript files.");
  await expect(page.getByTestId("message-assistant").last()).toContainText("The survey found 3 TypeScript files.");
  await expect(page.getByTestId("background-agents")).toContainText("0 running, 1 ended");
  await screenshot(page, "background-agent-done");

  // A reload rebuilds the list from session.get.
  await page.reload();
  await expect(page.getByTestId("background-agent")).toHaveAttribute("data-status", "completed");

  const main = (await sim.requests())
    .filter((request) => request.path === "/v1/messages")
    .map((request) => JSON.stringify((request.body as Body).messages))
    .filter((messages) => messages.includes(prompt));
  expect(main).toHaveLength(3);
  const agentId = /agentId: (a[0-9a-f]{16})/.exec(main[1]!)?.[1];
  expect(agentId).toBeDefined();
  expect(await page.getByTestId("background-agent").getAttribute("data-agent-id")).toBe(agentId);
  expect(main[1]).not.toContain("task-notification");
  expect(main[2]).toContain(`<task-id>${agentId}</task-id>`);
  expect(main[2]).toContain("Survey done: 3 TypeScript files.");
});
