import { execFileSync } from "node:child_process";
import { existsSync, readFileSync, realpathSync, rmSync } from "node:fs";
import { join } from "node:path";
import type { Page } from "@playwright/test";
import { expect, openIde, screenshot, test } from "./support/fixtures.ts";
import { startCairn, startModelSim, tempDir, type CairnProcess, type ModelSimProcess } from "./support/servers.ts";
import { writeWorkspace } from "./support/workspace-fixture.ts";

// A workspace of its own that starts as a plain folder; project settings let the agent's Bash run without a prompt.
let server: CairnProcess | undefined;
let sim: ModelSimProcess | undefined;
const ORIGINAL = "one\ntwo\nthree\n";

test.beforeAll(async () => {
  const workspace = realpathSync(tempDir("cairn-e2e-worktrees-ws-"));
  writeWorkspace(workspace, { "a.txt": ORIGINAL, ".claude/settings.json": JSON.stringify({ permissions: { allow: ["Bash"] } }) });
  sim = await startModelSim();
  server = await startCairn({ workspace, modelUrl: sim.url });
});

test.afterAll(async () => {
  await server?.stop();
  await sim?.stop();
  if (server) rmSync(server.workspace, { recursive: true, force: true });
});

const git = (args: string[]) => execFileSync("git", ["-c", "user.name=T", "-c", "user.email=t@t", ...args], { cwd: server!.workspace }).toString();
/** Where the server keeps a worktree session's checkout: `$CAIRN_HOME/worktrees/<workspace as a project name>/<session id>`. */
const worktreePath = (sessionId: string) => join(server!.cairnHome, "worktrees", server!.workspace.replace(/[^A-Za-z0-9]/g, "-"), sessionId);

async function script(turns: unknown[]): Promise<void> {
  for (const [path, body] of [
    ["/_sim/reset", undefined],
    ["/_sim/scenario", { turns }],
  ] as const) {
    const response = await fetch(`${sim!.url}${path}`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      ...(body ? { body: JSON.stringify(body) } : {}),
    });
    expect(response.ok).toBe(true);
  }
}

/** Starts a worktree session in the page and sends it a prompt; resolves with the session's id. */
async function startWorktreeSession(page: Page, prompt: string): Promise<string> {
  const chat = page.getByTestId("chat");
  const before = await chat.getAttribute("data-session-id");
  await page.getByTestId("session-new-worktree").click();
  await expect(chat).not.toHaveAttribute("data-session-id", before ?? "");
  const sessionId = (await chat.getAttribute("data-session-id")) ?? "";
  await expect(page.getByTestId("worktree-bar")).toHaveAttribute("data-branch", `cairn/${sessionId}`);
  await page.getByTestId("chat-input").fill(prompt);
  await page.getByTestId("chat-input").press("Enter");
  return sessionId;
}

test("a worktree session in a folder that is not a git repository: the IDE says so and offers git init", async ({ page }) => {
  await openIde(page, server!.loginUrl);
  await page.getByTestId("session-new-worktree").click();
  const notice = page.getByTestId("worktree-start-error");
  await expect(notice).toContainText("This workspace is not a git repository: a worktree session needs one.");
  await expect(page.getByTestId("chat")).toHaveAttribute("data-session-id", "");
  expect(existsSync(join(server!.workspace, ".git"))).toBe(false);
  await screenshot(page, "worktree-not-git");
  await notice.getByTestId("worktree-git-init").click();
  await expect(notice).toContainText("Initialised an empty repository (branch main)");
  expect(existsSync(join(server!.workspace, ".git", "HEAD"))).toBe(true);
  // The Git panel sees the new repository; with no commit yet, a worktree is refused with the reason.
  await expect(page.getByTestId("git-branch-name")).toHaveText("main");
  await page.getByTestId("session-new-worktree").click();
  await expect(page.getByTestId("worktree-start-error")).toContainText("main has no commit yet: commit something first");
});

test("two worktree sessions editing the same file in parallel: each edit stays in its worktree, one merges back, the other conflicts, then is discarded", async ({
  page,
  browser,
}) => {
  test.setTimeout(240_000);
  if (!existsSync(join(server!.workspace, ".git"))) git(["init", "-q", "--initial-branch=main"]);
  git(["add", "-A"]);
  git(["commit", "-qm", "first"]);
  // Each session gets the turns whose first message is its prompt, whichever asks first.
  await script([
    {
      match: { firstMessageIncludes: "alpha task" },
      content: [{ type: "tool_use", name: "Bash", input: { command: "printf 'one\\nTWO from alpha\\nthree\\n' > a.txt && pwd" } }],
    },
    { match: { firstMessageIncludes: "alpha task" }, content: [{ type: "text", text: "alpha done" }] },
    {
      match: { firstMessageIncludes: "bravo task" },
      content: [{ type: "tool_use", name: "Bash", input: { command: "printf 'one\\nTWO from bravo\\nthree\\n' > a.txt && pwd" } }],
    },
    { match: { firstMessageIncludes: "bravo task" }, content: [{ type: "text", text: "bravo done" }] },
  ]);
  const alphaPage = page;
  // A second browser (its own connection pool: one profile's two tabs would share six connections with their event streams).
  const bravoContext = await browser.newContext({ viewport: { width: 1600, height: 1000 } });
  const bravoPage = await bravoContext.newPage();
  await openIde(alphaPage, server!.loginUrl);
  await openIde(bravoPage, server!.loginUrl);
  const alpha = await startWorktreeSession(alphaPage, "alpha task");
  const bravo = await startWorktreeSession(bravoPage, "bravo task");
  await expect(alphaPage.getByTestId("message-assistant").last()).toContainText("alpha done");
  await expect(bravoPage.getByTestId("message-assistant").last()).toContainText("bravo done");

  // Both edits are on disk, each in its own worktree; the workspace itself is untouched.
  expect(readFileSync(join(worktreePath(alpha), "a.txt"), "utf8")).toBe("one\nTWO from alpha\nthree\n");
  expect(readFileSync(join(worktreePath(bravo), "a.txt"), "utf8")).toBe("one\nTWO from bravo\nthree\n");
  expect(readFileSync(join(server!.workspace, "a.txt"), "utf8")).toBe(ORIGINAL);
  expect(git(["status", "--porcelain"])).toBe("");

  // The git panel shows the worktree session's own checkout.
  const alphaGit = alphaPage.getByTestId("git-panel");
  await expect(alphaGit.getByTestId("git-branch-name")).toHaveText(`cairn/${alpha}`);
  await expect(alphaGit.locator('[data-testid="git-unstaged"] [data-testid="git-file"][data-path="a.txt"]')).toHaveAttribute("data-state", "modified");

  await alphaPage.getByTestId("worktree-merge").click();
  await expect(alphaPage.getByTestId("worktree-notice")).toContainText(`Merged cairn/${alpha} into main`);
  expect(readFileSync(join(server!.workspace, "a.txt"), "utf8")).toBe("one\nTWO from alpha\nthree\n");
  expect(git(["log", "--topo-order", "--format=%s", "main"])).toBe(`Merge branch 'cairn/${alpha}'\nWork of the Cairn session ${alpha}\nfirst\n`);

  // The second merge conflicts on a.txt: refused with the file named, and nothing changes on either side.
  await bravoPage.getByTestId("worktree-merge").click();
  await expect(bravoPage.getByTestId("worktree-error")).toContainText("conflicts in a.txt; the merge was undone and nothing changed");
  expect(readFileSync(join(server!.workspace, "a.txt"), "utf8")).toBe("one\nTWO from alpha\nthree\n");
  expect(git(["status", "--porcelain"])).toBe("");
  expect(readFileSync(join(worktreePath(bravo), "a.txt"), "utf8")).toBe("one\nTWO from bravo\nthree\n");

  // Discard asks first; Keep leaves everything, confirming removes the worktree and the branch.
  await bravoPage.getByTestId("worktree-discard").click();
  await bravoPage.getByTestId("worktree-discard-cancel").click();
  expect(existsSync(worktreePath(bravo))).toBe(true);
  await bravoPage.getByTestId("worktree-discard").click();
  await bravoPage.getByTestId("worktree-discard-confirm").click();
  await expect(bravoPage.getByTestId("worktree-bar")).toHaveAttribute("data-discarded", "true");
  await expect(bravoPage.getByTestId("worktree-notice")).toContainText(`Discarded the worktree and cairn/${bravo}`);
  expect(existsSync(worktreePath(bravo))).toBe(false);
  expect(git(["branch", "--list", `cairn/${bravo}`])).toBe("");
  // The discarded session stays readable; a new prompt is refused with the reason.
  await expect(bravoPage.getByTestId("message-assistant").last()).toContainText("bravo done");
  await bravoPage.getByTestId("chat-input").fill("more please");
  await bravoPage.getByTestId("chat-input").press("Enter");
  await expect(bravoPage.getByTestId("chat-action-error")).toContainText("worktree was discarded");
  await bravoContext.close();

  // Last (its diff editor loads Monaco, which keeps a loaded machine busy): the Changes panel shows the session's own worktree.
  await alphaPage.getByTestId("changes-toggle").click();
  await expect(alphaPage.locator('[data-testid="changes-file"][data-path="a.txt"]')).toHaveAttribute("data-status", "modified");
  await expect(alphaPage.getByTestId("changes-hunk")).toHaveCount(1, { timeout: 60_000 });
  await expect(alphaPage.getByTestId("changes-hunk")).toContainText("lines 2–2 · −1 +1");
});
