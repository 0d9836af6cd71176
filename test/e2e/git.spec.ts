import { execFileSync } from "node:child_process";
import { realpathSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { expect, openIde, screenshot, test } from "./support/fixtures.ts";
import { startCairn, startModelSim, tempDir, type CairnProcess, type ModelSimProcess } from "./support/servers.ts";
import { writeWorkspace } from "./support/workspace-fixture.ts";

// A workspace of its own that starts as a plain folder (the shared one must stay what other tests expect).
let server: CairnProcess | undefined;
let sim: ModelSimProcess | undefined;

test.beforeAll(async () => {
  const workspace = realpathSync(tempDir("cairn-e2e-git-ws-"));
  writeWorkspace(workspace, { "hello.txt": "hi\n", "src/app.ts": "export const app = 1;\n" });
  sim = await startModelSim();
  server = await startCairn({ workspace, modelUrl: sim.url });
});

test.afterAll(async () => {
  await server?.stop();
  await sim?.stop();
  if (server) for (const dir of [server.workspace, server.cairnHome]) rmSync(dir, { recursive: true, force: true });
});

const git = (args: string[], cwd = server!.workspace) => execFileSync("git", args, { cwd }).toString();

test("git panel: git init, stage, empty message refused, drafted message, commit, bad branch name refused, branch, push", async ({ page }) => {
  await openIde(page, server!.loginUrl);
  const panel = page.getByTestId("git-panel");
  await expect(panel.getByTestId("git-not-repository")).toContainText("not a git repository");
  await panel.getByTestId("git-init").click();
  await expect(panel.getByTestId("git-branch-name")).toHaveText("main");
  await expect(panel.locator('[data-testid="git-unstaged"] [data-testid="git-file"]')).toHaveCount(2);

  await panel.locator('[data-testid="git-unstaged"] [data-testid="git-file"][data-path="hello.txt"] [data-testid="git-stage"]').click();
  await expect(panel.locator('[data-testid="git-staged"] [data-testid="git-file"][data-path="hello.txt"]')).toHaveAttribute("data-state", "added");
  await panel.getByTestId("git-stage-all").click();
  await expect(panel.locator('[data-testid="git-staged"] [data-testid="git-file"]')).toHaveCount(2);
  await panel.locator('[data-testid="git-staged"] [data-testid="git-file"][data-path="src/app.ts"] [data-testid="git-unstage"]').click();
  await expect(panel.locator('[data-testid="git-unstaged"] [data-testid="git-file"][data-path="src/app.ts"]')).toHaveAttribute("data-state", "untracked");
  await panel.getByTestId("git-stage-all").click();

  // An empty message is refused and nothing is committed.
  await panel.getByTestId("git-commit").click();
  await expect(panel.getByTestId("git-error")).toContainText("Write a commit message first");
  expect(() => git(["log", "--oneline"])).toThrow();
  await expect(panel.locator('[data-testid="git-staged"] [data-testid="git-file"]')).toHaveCount(2);

  // Draft message: the model gets the staged diff and its answer fills the box.
  await fetch(`${sim!.url}/_sim/reset`, { method: "POST" });
  await fetch(`${sim!.url}/_sim/scenario`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ turns: [{ content: [{ type: "text", text: "Add the greeting and the app module" }] }] }),
  });
  await panel.getByTestId("git-draft").click();
  await expect(panel.getByTestId("git-commit-message")).toHaveValue("Add the greeting and the app module");
  const requests = (await (await fetch(`${sim!.url}/_sim/requests`)).json()) as Array<{ body: unknown }>;
  expect(JSON.stringify(requests.at(-1)?.body)).toContain("+export const app = 1;");
  await screenshot(page, "git-panel");
  await panel.getByTestId("git-commit").click();
  await expect(panel.getByTestId("git-notice")).toHaveText("Committed.");
  expect(git(["log", "--format=%s"])).toBe("Add the greeting and the app module\n");
  await expect(panel.locator('[data-testid="git-file"]')).toHaveCount(0);

  // A branch name git rejects gets git's reason; the branch stays as it was.
  await panel.getByTestId("git-branch-new").fill("bad..name");
  await panel.getByTestId("git-branch-create").click();
  await expect(panel.getByTestId("git-error")).toContainText('"bad..name" is not a valid branch name');
  await expect(panel.getByTestId("git-branch-name")).toHaveText("main");
  await panel.getByTestId("git-branch-new").fill("feature/review");
  await panel.getByTestId("git-branch-create").click();
  await expect(panel.getByTestId("git-branch-name")).toHaveText("feature/review");
  await panel.getByTestId("git-branch").selectOption("main");
  await expect(panel.getByTestId("git-branch-name")).toHaveText("main");

  // With a remote, Push appears and pushes the branch (a local bare repository needs no credentials).
  const remote = join(tempDir("cairn-e2e-git-remote-"), "origin.git");
  execFileSync("git", ["init", "-q", "--bare", remote]);
  git(["remote", "add", "origin", remote]);
  writeFileSync(join(server!.workspace, "trigger.txt"), "refresh\n");
  await panel.getByTestId("git-push").click();
  await expect(panel.getByTestId("git-notice")).toHaveText("Pushed.");
  expect(execFileSync("git", ["--git-dir", remote, "log", "--format=%s", "main"]).toString()).toBe("Add the greeting and the app module\n");
  rmSync(join(remote, ".."), { recursive: true, force: true });
});
