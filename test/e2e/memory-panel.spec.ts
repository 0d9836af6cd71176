import { rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { editorText, expect, screenshot, startNewSession, test } from "./support/fixtures.ts";

type Body = { messages: Array<{ role: string; content: unknown }> };

const saveKey = process.platform === "darwin" ? "Meta+s" : "Control+s";

test("the memory panel lists CLAUDE.md files, and an edit saved in the IDE reaches the next model request", async ({ ide: page, e2e, sim }) => {
  const memoryFile = join(e2e.workspace, "CLAUDE.md");
  const localFile = join(e2e.workspace, "CLAUDE.local.md");
  writeFileSync(memoryFile, "# Project rules\n\nAnswer in one line. RULE-V1\n");
  writeFileSync(localFile, "Local note: my editor is Monaco.\n");
  try {
    await sim.script([{ content: [{ type: "text", text: "First answer." }] }, { content: [{ type: "text", text: "Second answer." }] }]);
    await startNewSession(page);

    const panel = page.getByTestId("memory-panel");
    await panel.getByTestId("memory-panel-toggle").click();
    const files = panel.getByTestId("memory-files");
    const project = files.locator(`[data-testid="memory-file"][data-path="${memoryFile}"]`);
    const local = files.locator(`[data-testid="memory-file"][data-path="${localFile}"]`);
    await expect(project).toContainText("project · 45 chars");
    await expect(local).toContainText("local · 33 chars");
    await screenshot(page, "memory-panel");

    const input = page.getByTestId("chat-input");
    await input.fill("What are the rules?");
    await input.press("Enter");
    await expect(page.getByTestId("message-assistant").last()).toContainText("First answer.");

    // Edit CLAUDE.md in the editor and save it.
    await page.locator(`[data-testid="file-tree-item"][data-path="${memoryFile}"] button.file-tree-label`).click();
    const tab = page.locator(`[data-testid="editor-tab"][data-path="${memoryFile}"]`);
    await expect(tab).toBeVisible();
    await expect.poll(() => editorText(page)).toContain("RULE-V1");
    await page.locator('[data-testid="editor"] .monaco-editor .view-line', { hasText: "RULE-V1" }).click();
    await page.keyboard.press("Control+End");
    await page.keyboard.type("Also: RULE-V2 from the IDE.");
    await page.keyboard.press(saveKey);
    await expect(tab).toHaveAttribute("data-dirty", "false");

    await input.fill("And now?");
    await input.press("Enter");
    await expect(page.getByTestId("message-assistant").last()).toContainText("Second answer.");

    const sent = (await sim.requests()).filter((request) => request.path === "/v1/messages").map((request) => JSON.stringify((request.body as Body).messages));
    expect(sent).toHaveLength(2);
    expect(sent[0]).toContain(`Contents of ${memoryFile}`);
    expect(sent[0]).toContain("RULE-V1");
    expect(sent[0]).toContain("Local note: my editor is Monaco.");
    expect(sent[0]).not.toContain("RULE-V2");
    expect(sent[1]).toContain("Also: RULE-V2 from the IDE.");
    // The panel follows the edit (it re-checks while open).
    await expect(project).toContainText("project · 72 chars", { timeout: 15_000 });
  } finally {
    rmSync(memoryFile, { force: true });
    rmSync(localFile, { force: true });
  }
});
