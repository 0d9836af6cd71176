import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { Page } from "@playwright/test";
import { editorText, expect, test } from "./support/fixtures.ts";

const treeItem = (page: Page, path: string) => page.locator(`[data-testid="file-tree-item"][data-path="${path}"]`);
const tab = (page: Page, path: string) => page.locator(`[data-testid="editor-tab"][data-path="${path}"]`);
const saveKey = process.platform === "darwin" ? "Meta+s" : "Control+s";

async function typeInEditor(page: Page, text: string): Promise<void> {
  await page.locator('[data-testid="editor"] .monaco-editor .view-lines').click();
  await page.keyboard.press("Control+End");
  await page.keyboard.type(text);
}

test("the explorer creates, renames and deletes files; the editor marks unsaved edits and saves with Ctrl+S", async ({ ide: page, e2e }) => {
  const created = join(e2e.workspace, "created.ts");
  const renamed = join(e2e.workspace, "renamed.ts");

  await page.getByTestId("file-tree-new-file").click();
  await page.getByTestId("file-tree-new-name").fill("created.ts");
  await page.getByTestId("file-tree-new-name").press("Enter");
  await expect(treeItem(page, created)).toBeVisible();
  await expect(tab(page, created)).toBeVisible();
  expect(existsSync(created)).toBe(true);

  await typeInEditor(page, "export const answer = 42;");
  await expect(tab(page, created)).toHaveAttribute("data-dirty", "true");
  await expect(tab(page, created).getByTestId("dirty-marker")).toBeVisible();
  await page.keyboard.press(saveKey);
  await expect(tab(page, created)).toHaveAttribute("data-dirty", "false");
  expect(readFileSync(created, "utf8")).toBe("export const answer = 42;");
  // One save, no false conflict from a second write.
  await expect(page.getByTestId("editor-notice")).toHaveCount(0);

  await treeItem(page, created).hover();
  await treeItem(page, created).getByTestId("file-tree-rename").click();
  await page.getByTestId("file-tree-rename-input").fill("renamed.ts");
  await page.getByTestId("file-tree-rename-input").press("Enter");
  await expect(treeItem(page, renamed)).toBeVisible();
  await expect(treeItem(page, created)).toHaveCount(0);
  await expect(tab(page, renamed)).toBeVisible();
  expect(readFileSync(renamed, "utf8")).toBe("export const answer = 42;");

  await treeItem(page, renamed).hover();
  await treeItem(page, renamed).getByTestId("file-tree-delete").click();
  await treeItem(page, renamed).getByTestId("file-tree-delete-confirm").click();
  await expect(treeItem(page, renamed)).toHaveCount(0);
  await expect(tab(page, renamed)).toHaveCount(0);
  expect(existsSync(renamed)).toBe(false);
});

test("a change on disk to a file with unsaved edits asks: reload, or keep mine", async ({ ide: page, e2e }) => {
  const file = join(e2e.workspace, "conflict.ts");
  writeFileSync(file, "const version = 1;\n");
  await expect(treeItem(page, file)).toBeVisible();
  await treeItem(page, file).locator("button.file-tree-label").click();
  await expect.poll(() => editorText(page)).toContain("const version = 1;");

  // A clean buffer simply follows the disk.
  writeFileSync(file, "const version = 2;\n");
  await expect.poll(() => editorText(page)).toContain("const version = 2;");

  await typeInEditor(page, "// mine");
  await expect(tab(page, file)).toHaveAttribute("data-dirty", "true");
  writeFileSync(file, "const version = 3;\n");
  const conflict = page.getByTestId("editor-conflict");
  await expect(conflict).toBeVisible();
  await expect(conflict).toContainText("changed on disk");
  expect(await editorText(page)).toContain("// mine");

  await page.getByTestId("editor-conflict-reload").click();
  await expect(conflict).toBeHidden();
  await expect.poll(() => editorText(page)).toContain("const version = 3;");
  await expect(tab(page, file)).toHaveAttribute("data-dirty", "false");

  await typeInEditor(page, "// mine again");
  writeFileSync(file, "const version = 4;\n");
  await expect(conflict).toBeVisible();
  await page.getByTestId("editor-conflict-keep").click();
  await expect(conflict).toBeHidden();
  await page.keyboard.press(saveKey);
  await expect(tab(page, file)).toHaveAttribute("data-dirty", "false");
  expect(readFileSync(file, "utf8")).toContain("// mine again");
});
