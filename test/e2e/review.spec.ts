import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { Page, Request } from "@playwright/test";
import { expect, screenshot, test, type ScriptedTurn } from "./support/fixtures.ts";

const CALC_BEFORE = ["export function add(a: number, b: number): number {", "  return a + b;", "}", "", "export const VERSION = 1;", ""].join("\n");
const CALC_AFTER = [
  "// Arithmetic helpers.",
  "export function add(a: number, b: number): number {",
  "  return a + b;",
  "}",
  "",
  "export const VERSION = 2;",
  "",
].join("\n");

/** The agent reads a file, rewrites it (two changed runs of lines) and makes a second file with Bash. */
function editScript(file: string, bashFile: string): ScriptedTurn[] {
  return [
    { content: [{ type: "tool_use", name: "Read", input: { file_path: file } }] },
    {
      content: [
        { type: "tool_use", name: "Write", input: { file_path: file, content: CALC_AFTER } },
        { type: "tool_use", name: "Bash", input: { command: `echo made by bash > ${bashFile}` } },
      ],
    },
    { content: [{ type: "text", text: "Updated the helpers." }] },
  ];
}

async function runPrompt(page: Page, prompt: string): Promise<void> {
  await page.getByTestId("chat-input").fill(prompt);
  await page.getByTestId("chat-input").press("Enter");
  await expect(page.getByTestId("message-user").last()).toHaveText(prompt);
}

/** A session whose agent changed `dir/calc.ts` (Write) and `dir/bash.txt` (Bash, allowed once). */
async function sessionThatChangedFiles(page: Page, workspace: string, sim: { script(turns: ScriptedTurn[]): Promise<void> }, dir: string) {
  const folder = join(workspace, dir);
  mkdirSync(folder, { recursive: true });
  const calc = join(folder, "calc.ts");
  const bash = join(folder, "bash.txt");
  writeFileSync(calc, CALC_BEFORE);
  await sim.script(editScript(calc, bash));
  await runPrompt(page, `Tidy ${dir}/calc.ts`);
  for (const tool of ["Write", "Bash"]) {
    await expect(page.getByTestId("permission-prompt")).toHaveAttribute("data-tool-name", tool);
    await page.getByTestId("permission-allow-once").click();
  }
  await expect(page.getByTestId("message-assistant").last()).toContainText("Updated the helpers.");
  await expect(page.getByTestId("chat")).toHaveAttribute("data-running", "false");
  expect(readFileSync(calc, "utf8")).toBe(CALC_AFTER);
  return { calc, bash, relative: `${dir}/calc.ts`, bashRelative: `${dir}/bash.txt` };
}

/** Clicks line `line` of the modified side of the Changes diff (its line number in the gutter) and writes a comment. */
async function commentOnLine(page: Page, line: number, text: string): Promise<void> {
  await page
    .locator('[data-testid="changes-diff"] .editor.modified .line-numbers')
    .filter({ hasText: new RegExp(`^${line}$`) })
    .click();
  await expect(page.locator('label[for="review-comment-input"]')).toContainText(`:${line}`);
  // The diff may still be settling after the revert's refresh: write until the text holds.
  await expect(async () => {
    await page.getByTestId("review-comment-input").fill(text);
    await expect(page.getByTestId("review-comment-add")).toBeEnabled({ timeout: 1_000 });
  }).toPass();
  await page.getByTestId("review-comment-add").click();
}

test("changes panel: lists Write and Bash changes, reverts one hunk to disk, and a review of two lines reaches the model", async ({ ide: page, e2e, sim }) => {
  const files = await sessionThatChangedFiles(page, e2e.workspace, sim, "review-hunk");

  await page.getByTestId("changes-toggle").click();
  const panel = page.getByTestId("changes-panel");
  await expect(panel.locator(`[data-testid="changes-file"][data-path="${files.relative}"]`)).toHaveAttribute("data-status", "modified");
  await expect(panel.locator(`[data-testid="changes-file"][data-path="${files.bashRelative}"]`)).toHaveAttribute("data-status", "added");
  await panel.locator(`[data-testid="changes-file"][data-path="${files.relative}"]`).click();
  await expect(page.getByTestId("changes-diff").locator(".editor.modified")).toBeVisible();
  await expect(page.getByTestId("changes-hunk")).toHaveCount(2);
  await screenshot(page, "changes-panel");

  // Revert the second change (VERSION 2 → 1): only that goes back, on disk.
  await page.getByTestId("changes-revert-hunk").nth(1).click();
  await expect(page.getByTestId("changes-hunk")).toHaveCount(1);
  expect(readFileSync(files.calc, "utf8")).toBe(CALC_AFTER.replace("VERSION = 2", "VERSION = 1"));

  // Comment on two lines of the file as it is now, then send the review.
  await commentOnLine(page, 1, "Drop this banner comment.");
  await commentOnLine(page, 3, "Guard against NaN here.");
  await expect(page.getByTestId("review-comment")).toHaveCount(2);
  await expect(page.getByTestId("review-comments")).toContainText(`${files.relative}:3`);
  await screenshot(page, "review-comments");

  await sim.script([{ content: [{ type: "text", text: "I will address both comments." }] }]);
  await page.getByTestId("review-send").click();
  await expect(page.getByTestId("review-comments")).toHaveCount(0);
  await expect(page.getByTestId("message-assistant").last()).toContainText("I will address both comments.");
  const requests = await sim.requests();
  const sent = JSON.stringify(requests.at(-1)?.body);
  expect(sent).toContain(`${files.relative}:1\\n    // Arithmetic helpers.\\n   Drop this banner comment.`);
  expect(sent).toContain(`${files.relative}:3\\n      return a + b;\\n   Guard against NaN here.`);
  // The hunk revert was recorded in the transcript, so the model saw it too.
  expect(sent).toContain(`The user reverted one of this session's changes to ${files.relative}`);
});

test("changes panel: a revert of a file that changed since it was shown is refused and nothing is overwritten", async ({ ide: page, e2e, sim }) => {
  const listsInFlight = new Set<Request>();
  page.on("request", (request) => request.url().includes("changes.list") && listsInFlight.add(request));
  page.on("requestfinished", (request) => listsInFlight.delete(request));
  page.on("requestfailed", (request) => listsInFlight.delete(request));
  const files = await sessionThatChangedFiles(page, e2e.workspace, sim, "review-conflict");
  await page.getByTestId("changes-toggle").click();
  await page.locator(`[data-testid="changes-file"][data-path="${files.relative}"]`).click();
  await expect(page.getByTestId("changes-hunk")).toHaveCount(2);

  // Someone changes the file after the panel showed it; the panel is kept from refreshing in between. A list request
  // sent before the route took hold (a late file-watch tick refreshes the panel) could still read the edited file and
  // show it, so the edit waits until every such request has ended.
  // By path, not a glob on the URL's start: tRPC batches queries made in the same tick, so the list can travel as
  // `git.status,changes.list` (a CI run's file-watch tick sent it so, the panel showed the edit, and the revert went through).
  const listRequests = (url: URL) => url.pathname.includes("changes.list");
  await page.route(listRequests, (route) => route.abort());
  await expect.poll(() => listsInFlight.size).toBe(0);
  writeFileSync(files.calc, "// edited by hand meanwhile\n");
  await page.getByTestId("changes-revert-file").click();
  await expect(page.getByTestId("changes-error")).toContainText("changed since the Changes panel showed it; nothing was reverted");
  expect(readFileSync(files.calc, "utf8")).toBe("// edited by hand meanwhile\n");
  await page.getByTestId("changes-revert-hunk").first().click();
  await expect(page.getByTestId("changes-error")).toContainText("nothing was reverted");
  expect(readFileSync(files.calc, "utf8")).toBe("// edited by hand meanwhile\n");

  // With the current version shown, the whole file goes back to how the session found it.
  await page.unroute(listRequests);
  await page.getByTestId("changes-refresh").click();
  await expect(page.getByTestId("changes-hunk")).toHaveCount(1);
  await page.getByTestId("changes-revert-file").click();
  await expect(page.locator(`[data-testid="changes-file"][data-path="${files.relative}"]`)).toHaveCount(0);
  expect(readFileSync(files.calc, "utf8")).toBe(CALC_BEFORE);
});

test("rewind here: previews the files, rewinds code and conversation, and the file rewind can be undone", async ({ ide: page, e2e, sim }) => {
  const files = await sessionThatChangedFiles(page, e2e.workspace, sim, "review-rewind");
  const first = await page.getByTestId("chat").getAttribute("data-session-id");
  await expect(page.getByTestId("session-cost")).not.toHaveAttribute("data-cost-usd", "0.000000");
  await expect(page.getByTestId("run-result-cost").last()).toContainText("$");

  await page.getByTestId("message-rewind").first().click();
  const dialog = page.getByTestId("rewind-dialog");
  await expect(dialog.locator(`[data-testid="rewind-preview-file"][data-path="${files.relative}"]`)).toContainText("restored");
  await expect(dialog.locator(`[data-testid="rewind-preview-file"][data-path="${files.bashRelative}"]`)).toContainText("removed");
  await expect(page.getByTestId("rewind-mode-both")).toBeChecked();
  await screenshot(page, "rewind-dialog");
  await page.getByTestId("rewind-confirm").click();

  await expect(page.getByTestId("rewind-done")).toContainText("Files restored");
  await expect(page.getByTestId("chat")).not.toHaveAttribute("data-session-id", first!);
  await expect(page.getByTestId("message-user")).toHaveCount(0);
  expect(readFileSync(files.calc, "utf8")).toBe(CALC_BEFORE);
  expect(existsSync(files.bash)).toBe(false);

  await page.getByTestId("rewind-undo").click();
  await expect(page.getByTestId("rewind-done")).toContainText("undone");
  expect(readFileSync(files.calc, "utf8")).toBe(CALC_AFTER);
  expect(readFileSync(files.bash, "utf8")).toBe("made by bash\n");
});
