import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { Page } from "@playwright/test";
import { expect, startNewSession, test } from "./support/fixtures.ts";

const LINES = ["first line", "second line", "third line", "fourth line", "fifth line", ""].join("\n");

/** Lines Monaco's diff marks on each side of the Changes panel's diff editor (whole-line decorations in the view). */
async function markedLines(page: Page): Promise<{ inserted: number; deleted: number }> {
  const diff = page.getByTestId("changes-diff");
  return {
    inserted: await diff.locator(".editor.modified .view-overlays .line-insert").count(),
    deleted: await diff.locator(".editor.original .view-overlays .line-delete").count(),
  };
}

test("changes panel diff: one added line is one inserted line, not the whole file replaced, for every file shown", async ({ ide: page, e2e, sim }) => {
  // Two permission prompts with a Monaco diff each, then two diff editors: slow on a loaded machine.
  test.setTimeout(240_000);
  const folder = join(e2e.workspace, "diff-marks");
  mkdirSync(folder, { recursive: true });
  const one = join(folder, "one.txt");
  const two = join(folder, "two.txt");
  writeFileSync(one, LINES);
  writeFileSync(two, LINES);
  await sim.script([
    {
      content: [
        { type: "tool_use", name: "Read", input: { file_path: one } },
        { type: "tool_use", name: "Read", input: { file_path: two } },
      ],
    },
    {
      content: [
        { type: "tool_use", name: "Edit", input: { file_path: one, old_string: "second line\n", new_string: "second line\nadded line\n" } },
        { type: "tool_use", name: "Edit", input: { file_path: two, old_string: "fourth line\n", new_string: "fourth line\nanother added line\n" } },
      ],
    },
    { content: [{ type: "text", text: "Added the lines." }] },
  ]);
  await startNewSession(page);
  await page.getByTestId("chat-input").fill("Add a line to each file");
  await page.getByTestId("chat-input").press("Enter");
  // One prompt after the other, told apart by their file (both are Edit prompts).
  for (const name of ["one.txt", "two.txt"]) {
    await expect(page.getByTestId("permission-prompt")).toContainText(`diff-marks/${name}`);
    await page.getByTestId("permission-allow-once").click();
  }
  await expect(page.getByTestId("message-assistant").last()).toContainText("Added the lines.");

  await page.getByTestId("changes-toggle").click();
  for (const [name, addedAt] of [
    ["one.txt", 3],
    ["two.txt", 5],
  ] as const) {
    await page.locator(`[data-testid="changes-file"][data-path="diff-marks/${name}"]`).click();
    await expect(page.getByTestId("changes-hunk")).toHaveCount(1);
    await expect.poll(() => markedLines(page)).toEqual({ inserted: 1, deleted: 0 });
    // The inserted line is the added one, at its line number on the right.
    const inserted = page.getByTestId("changes-diff").locator(".editor.modified .view-overlays .line-insert");
    const top = await inserted.evaluate((element) => (element.parentElement as HTMLElement).style.top);
    const lineTop = await page
      .getByTestId("changes-diff")
      .locator(".editor.modified .line-numbers")
      .filter({ hasText: new RegExp(`^${addedAt}$`) })
      .evaluate((element) => (element.parentElement as HTMLElement).style.top);
    expect(top).toBe(lineTop);
  }
  // Back to the first file: its diff is its own again.
  await page.locator('[data-testid="changes-file"][data-path="diff-marks/one.txt"]').click();
  await expect.poll(() => markedLines(page)).toEqual({ inserted: 1, deleted: 0 });
});
