import { realpathSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { expect, screenshot, test, type ScriptedTurn } from "./support/fixtures.ts";
import { repoRoot, startCairn, tempDir } from "./support/servers.ts";
import { writeWorkspace } from "./support/workspace-fixture.ts";

/**
 * A turn the model simulator holds for `ms` after its first event. The fixture's `ScriptedTurn` omits the
 * simulator's `stall` fault; the scenario is JSON the simulator validates itself.
 */
function held(content: unknown[], ms: number): ScriptedTurn {
  const turn = { content, faults: [{ kind: "stall", afterEvents: 1, ms }] };
  return turn as unknown as ScriptedTurn;
}

function stalled(text: string, ms: number): ScriptedTurn {
  return held([{ type: "text", text }], ms);
}

test("shows each parallel subagent's tool calls as they happen and its final answer in its own Agent card", async ({ ide: page, e2e, sim }) => {
  const greet = join(e2e.workspace, "src", "greet.ts");
  const agent = (id: string, description: string) => ({
    type: "tool_use" as const,
    id,
    name: "Agent",
    input: { description, prompt: `Read ${greet} and say what it returns.` },
  });
  // The simulator answers requests in arrival order, so the two subagents' turns are alike whichever asks first.
  // The Read turns are held for a while: otherwise the subagent that asks first could read, ask again and take
  // the other's Read turn before the other's first request arrives.
  const read = [{ type: "tool_use", name: "Read", input: { file_path: greet } }];
  await sim.script([
    { content: [{ type: "text", text: "I will ask two helpers." }, agent("toolu_agent_a", "Check the greeting"), agent("toolu_agent_b", "Double-check it")] },
    held(read, 2_000),
    held(read, 2_000),
    // Held long enough to see a subagent that has read the file but not answered yet.
    stalled("greet returns Hello followed by the name.", 4_000),
    stalled("greet returns Hello followed by the name.", 4_000),
    { content: [{ type: "text", text: "Both helpers agree." }] },
  ]);

  await page.getByTestId("chat-input").fill("What does greet return? Use two subagents.");
  await page.getByTestId("chat-input").press("Enter");

  const cards = page.locator('[data-testid="tool-call"][data-tool-name="Agent"]');
  await expect(cards).toHaveCount(2);
  for (const [id, description] of [
    ["toolu_agent_a", "Check the greeting"],
    ["toolu_agent_b", "Double-check it"],
  ] as const) {
    const card = page.locator(`[data-testid="tool-call"][data-tool-use-id="${id}"]`);
    const subagent = card.getByTestId("subagent");
    await expect(subagent).toContainText(description);
    await expect(subagent).toContainText("general-purpose");
    // Progress while it runs: its Read is listed and done, the subagent and the Agent call are not.
    const step = subagent.locator('[data-testid="subagent-step"][data-tool-name="Read"]');
    await expect(step).toHaveAttribute("data-status", "completed");
    await expect(step).toContainText(greet);
    await expect(subagent).toHaveAttribute("data-done", "false");
    await expect(card).toHaveAttribute("data-status", "running");
  }
  await screenshot(page, "subagent-progress");

  for (const id of ["toolu_agent_a", "toolu_agent_b"]) {
    const card = page.locator(`[data-testid="tool-call"][data-tool-use-id="${id}"]`);
    await expect(card).toHaveAttribute("data-status", "completed", { timeout: 30_000 });
    await expect(card.getByTestId("subagent")).toHaveAttribute("data-done", "true");
    await expect(card.getByTestId("subagent-text")).toContainText("greet returns Hello followed by the name.");
    await expect(card.getByTestId("tool-result")).toContainText("greet returns Hello followed by the name.");
    // The subagent's own Read never becomes a card of the parent conversation.
  }
  await expect(page.locator('[data-testid="tool-call"][data-tool-name="Read"]')).toHaveCount(0);
  await expect(page.getByTestId("message-assistant").last()).toContainText("Both helpers agree.");
});

test("the MCP panel lists a project server as needing trust, then connected with its tools, resources and prompts", async ({ page }) => {
  // Its own server and workspace: a .mcp.json in the shared workspace would start a server for every spec.
  const workspace = realpathSync(tempDir("cairn-e2e-mcp-ws-"));
  writeWorkspace(workspace);
  const everything = join(repoRoot, "node_modules", "@modelcontextprotocol", "server-everything", "dist", "index.js");
  writeFileSync(join(workspace, ".mcp.json"), JSON.stringify({ mcpServers: { everything: { command: process.execPath, args: [everything, "stdio"] } } }));
  const cairn = await startCairn({ workspace });
  try {
    await page.goto(cairn.loginUrl);
    await expect(page.getByTestId("ide")).toBeVisible();
    const panel = page.getByTestId("mcp-panel");
    await expect(panel).toBeVisible();
    await expect(page.getByTestId("trust-dialog")).toBeVisible();
    await page.getByTestId("trust-decline").click();
    await panel.getByTestId("mcp-panel-toggle").click();
    const server = panel.locator('[data-testid="mcp-server"][data-server="everything"]');
    await expect(server).toHaveAttribute("data-status", "needs-trust");

    // Trusting the workspace starts the server (the tab asks again once it forgets the "not now"); the panel follows.
    await page.evaluate(() => window.sessionStorage.clear());
    await page.reload();
    await page.getByTestId("trust-accept").click();
    await expect(page.getByTestId("trust-dialog")).toBeHidden();
    await page.getByTestId("mcp-panel-toggle").click();
    await expect(server).toHaveAttribute("data-status", "connected", { timeout: 30_000 });
    await expect(server).toContainText("sandboxed");
    await server.getByTestId("mcp-tools").locator("summary").click();
    await expect(server.getByTestId("mcp-tools")).toContainText("echo");
    await expect(server.getByTestId("mcp-resources")).toBeVisible();
    await expect(server.getByTestId("mcp-prompts")).toBeVisible();

    const reconnected = page.waitForResponse((response) => response.url().includes("/api/trpc/mcp.reconnect"));
    await server.getByTestId("mcp-reconnect").click();
    expect((await reconnected).ok()).toBe(true);
    await expect(server.getByTestId("mcp-reconnect")).toHaveText("Reconnect");
    await expect(server).toHaveAttribute("data-status", "connected", { timeout: 30_000 });
    await screenshot(page, "mcp-panel");
  } finally {
    await cairn.stop();
    rmSync(workspace, { recursive: true, force: true });
    rmSync(cairn.cairnHome, { recursive: true, force: true });
  }
});
