import { readFileSync } from "node:fs";
import { join } from "node:path";
import { editorText, expect, screenshot, test } from "./support/fixtures.ts";

// Long enough (about 6 s at 40 ms per event) to watch it stream even on a busy machine.
const filler = Array.from({ length: 300 }, (_, index) => `step${index + 1}`).join(" ");

test("streams the answer, runs Glob, Grep and Read in parallel, asks for an Edit with its diff, and the allowed edit reaches disk and the open editor", async ({
  ide: page,
  e2e,
  sim,
}) => {
  const file = join(e2e.workspace, "src", "greet.ts");
  await sim.script([
    {
      chunkDelayMs: 40,
      content: [
        { type: "text", text: `I will look at the project first. ${filler}` },
        { type: "tool_use", name: "Glob", input: { pattern: "src/**/*.ts", path: e2e.workspace } },
        { type: "tool_use", name: "Grep", input: { pattern: "Hello", path: e2e.workspace, output_mode: "files_with_matches" } },
        { type: "tool_use", name: "Read", input: { file_path: file } },
      ],
    },
    {
      content: [
        { type: "text", text: "Now I change the greeting." },
        { type: "tool_use", name: "Edit", input: { file_path: file, old_string: '"Hello, "', new_string: '"Hi there, "' } },
      ],
    },
    { content: [{ type: "text", text: "The greeting now says Hi there." }] },
  ]);

  // The file is open in the editor before the agent touches it.
  await page.locator(`[data-testid="file-tree-item"][data-path="${join(e2e.workspace, "src")}"] button.file-tree-label`).click();
  await page.locator(`[data-testid="file-tree-item"][data-path="${file}"] button.file-tree-label`).click();
  await expect(page.locator(`[data-testid="editor-tab"][data-path="${file}"]`)).toBeVisible();
  await expect.poll(() => editorText(page)).toContain('"Hello, "');

  await page.getByTestId("chat-input").fill("Make the greeting friendlier");
  await page.getByTestId("chat-input").press("Enter");
  await expect(page.getByTestId("message-user")).toHaveText("Make the greeting friendlier");

  const answer = page.getByTestId("message-assistant").first();
  await expect(page.locator('[data-testid="message-assistant"][data-streaming="true"]')).toBeVisible();
  await expect(answer).toContainText("I will look at the project first.");
  await expect(answer).toContainText("step300", { timeout: 60_000 });

  const batches = new Set<string | null>();
  for (const name of ["Glob", "Grep", "Read"]) {
    const card = page.locator(`[data-testid="tool-call"][data-tool-name="${name}"]`);
    await expect(card).toHaveAttribute("data-status", "completed");
    batches.add(await card.getAttribute("data-batch"));
  }
  // The three read-only calls ran together, in one concurrent batch.
  expect([...batches]).toHaveLength(1);
  expect([...batches][0]).toMatch(/^\d+$/);
  await expect(page.locator('[data-testid="tool-call"][data-tool-name="Read"] [data-testid="tool-result"]')).toContainText("Hello, ");

  const prompt = page.getByTestId("permission-prompt");
  await expect(prompt).toBeVisible();
  await expect(prompt).toHaveAttribute("data-tool-name", "Edit");
  await expect(page.locator('[data-testid="tool-call"][data-tool-name="Edit"]')).toHaveAttribute("data-status", "pending");
  const diff = page.getByTestId("permission-diff");
  await expect.poll(() => editorText(page, '[data-testid="permission-diff"] .editor.original')).toContain('return "Hello, " + name;');
  await expect.poll(() => editorText(page, '[data-testid="permission-diff"] .editor.modified')).toContain('return "Hi there, " + name;');
  await expect(diff).toBeVisible();
  await screenshot(page, "permission-edit-diff");

  await page.getByTestId("permission-allow-once").click();
  await expect(prompt).toBeHidden();
  const edit = page.locator('[data-testid="tool-call"][data-tool-name="Edit"]');
  await expect(edit).toHaveAttribute("data-status", "completed");
  await expect(edit.getByTestId("tool-decision")).toContainText("you allowed it once");

  await expect.poll(() => readFileSync(file, "utf8")).toContain('"Hi there, "');
  // The open, unmodified editor follows the agent's change.
  await expect.poll(() => editorText(page)).toContain('return "Hi there, " + name;');
  await expect(page.locator(`[data-testid="editor-tab"][data-path="${file}"]`)).toHaveAttribute("data-dirty", "false");

  await expect(page.getByTestId("message-assistant").last()).toContainText("The greeting now says Hi there.");
  await expect(page.getByTestId("run-result")).toHaveAttribute("data-reason", "completed");
  await expect(page.getByTestId("chat")).toHaveAttribute("data-running", "false");
  await screenshot(page, "agent-run-complete");
});

test("a denial with feedback reaches the model in its next request", async ({ ide: page, e2e, sim }) => {
  const file = join(e2e.workspace, "src", "deny-me.ts");
  const before = readFileSync(file, "utf8");
  const feedback = "Keep the double quotes and change nothing";
  await sim.script([
    { content: [{ type: "tool_use", name: "Read", input: { file_path: file } }] },
    { content: [{ type: "tool_use", name: "Edit", input: { file_path: file, old_string: '"double"', new_string: "'single'" } }] },
    { content: [{ type: "text", text: "Understood, I left the file alone." }] },
  ]);

  // Shift+Enter makes a new line; only the button (or Enter) sends.
  await page.getByTestId("chat-input").click();
  await page.keyboard.type("Use single quotes");
  await page.keyboard.press("Shift+Enter");
  await page.keyboard.type("in deny-me.ts");
  await expect(page.getByTestId("chat-input")).toHaveValue("Use single quotes\nin deny-me.ts");
  await page.getByTestId("chat-send").click();
  await expect(page.getByTestId("message-user")).toHaveText("Use single quotes\nin deny-me.ts");

  const prompt = page.getByTestId("permission-prompt");
  await expect(prompt).toHaveAttribute("data-tool-name", "Edit");
  await expect(page.getByTestId("permission-allow-always")).toBeVisible();
  await page.getByTestId("permission-feedback").fill(feedback);
  await page.getByTestId("permission-deny").click();
  await expect(prompt).toBeHidden();

  const edit = page.locator('[data-testid="tool-call"][data-tool-name="Edit"]');
  await expect(edit).toHaveAttribute("data-status", "error");
  await expect(edit.getByTestId("tool-decision")).toContainText(`you denied it: “${feedback}”`);
  await expect(page.getByTestId("message-assistant").last()).toContainText("Understood, I left the file alone.");

  const requests = (await sim.requests()).filter((request) => request.path.startsWith("/v1/messages") && !request.path.includes("count_tokens"));
  expect(requests.length).toBeGreaterThanOrEqual(3);
  const last = JSON.stringify(requests.at(-1)!.body);
  expect(last).toContain(feedback);
  expect(readFileSync(file, "utf8")).toBe(before);
});

test("Esc interrupts a response mid-stream; the partial text stays, marked incomplete", async ({ ide: page, sim }) => {
  // About a minute of streaming: the interrupt always lands mid-stream.
  const words = Array.from({ length: 2000 }, (_, index) => `w${index + 1}`).join(" ");
  await sim.script([{ chunkDelayMs: 40, content: [{ type: "text", text: words }] }]);

  await page.getByTestId("chat-input").fill("Write a lot");
  await page.getByTestId("chat-input").press("Enter");
  const answer = page.getByTestId("message-assistant");
  await expect(answer).toContainText("w20 ");
  await expect(page.getByTestId("chat-interrupt")).toBeVisible();
  await page.getByTestId("chat-input").press("Escape");

  await expect(page.getByTestId("run-result")).toHaveAttribute("data-reason", /^aborted_/);
  await expect(page.getByTestId("chat")).toHaveAttribute("data-running", "false");
  await expect(page.getByTestId("chat-interrupt")).toBeHidden();
  await expect(answer.getByTestId("message-incomplete")).toBeVisible();
  await expect(answer).not.toContainText("w2000");
  await screenshot(page, "interrupted");
});

test("a reload in the middle of a run continues the same stream, with nothing lost or doubled", async ({ ide: page, e2e, sim }) => {
  // About 15 s of streaming, so the reload lands mid-run.
  const words = Array.from({ length: 1500 }, (_, index) => `r${index + 1}`);
  await sim.script([{ chunkDelayMs: 30, content: [{ type: "text", text: words.join(" ") }] }]);
  await page.getByTestId("chat-input").fill("Count for me");
  await page.getByTestId("chat-input").press("Enter");
  await expect(page.getByTestId("message-assistant")).toContainText("r30 ");
  await expect(page.getByTestId("message-assistant")).not.toContainText("r1500");

  const resumed: string[] = [];
  page.on("request", (request) => {
    if (request.url().includes("session.events")) resumed.push(decodeURIComponent(request.url()));
  });
  await page.reload();
  await expect(page.getByTestId("ide")).toBeVisible();
  await expect(page.getByTestId("chat")).toHaveAttribute("data-stream", "live");
  // The stream restarts after the last event this tab had applied.
  expect(resumed.some((url) => /"lastEventId":"\d+"/.test(url))).toBe(true);

  const answer = page.getByTestId("message-assistant");
  await expect(answer).toHaveCount(1);
  await expect(page.getByTestId("run-result")).toHaveAttribute("data-reason", "completed", { timeout: 90_000 });
  await expect(answer).toHaveText(words.join(" "));
  await expect(page.getByTestId("message-user")).toHaveCount(1);
  expect(e2e.url).toMatch(/^http:\/\/cairn-[0-9a-f]{16}\.localhost:\d+$/);
});

test("Bash asks with the exact command; allowed for the session, it runs and its output reaches the card", async ({ ide: page, e2e, sim }) => {
  const command = "echo from-bash > bash-out.txt && cat bash-out.txt";
  const todos = [
    { content: "Run the command", status: "in_progress", activeForm: "Running the command" },
    { content: "Report back", status: "pending", activeForm: "Reporting back" },
  ];
  await sim.script([
    {
      content: [
        { type: "tool_use", name: "TodoWrite", input: { todos } },
        { type: "tool_use", name: "Bash", input: { command, description: "Write and show a file" } },
      ],
    },
    { content: [{ type: "text", text: "The command ran." }] },
  ]);
  await page.getByTestId("chat-input").fill("Run the command");
  await page.getByTestId("chat-input").press("Enter");

  const prompt = page.getByTestId("permission-prompt");
  await expect(prompt).toHaveAttribute("data-tool-name", "Bash");
  await expect(page.getByTestId("permission-command")).toHaveText(command);
  await expect(page.getByTestId("todo-list")).toContainText("Running the command");
  await expect(page.getByTestId("todo-list")).toContainText("Todos 0/2");
  await screenshot(page, "permission-bash");
  await page.getByTestId("permission-allow-session").click();

  const card = page.locator('[data-testid="tool-call"][data-tool-name="Bash"]');
  await expect(card).toHaveAttribute("data-status", "completed");
  await expect(card.getByTestId("tool-decision")).toContainText("you allowed it for this session");
  await expect(card).toContainText("from-bash");
  await expect(page.getByTestId("message-assistant").last()).toContainText("The command ran.");
  await expect.poll(() => readFileSync(join(e2e.workspace, "bash-out.txt"), "utf8")).toBe("from-bash\n");
});

test("a retried request and a model error both show in the chat", async ({ ide: page, sim }) => {
  await sim.script([
    { content: [{ type: "text", text: "Answered after a retry." }], faults: [{ kind: "http", status: 529, retryAfter: 0.2 }] },
    { content: [{ type: "text", text: "never sent" }], faults: [{ kind: "http", status: 400, message: "scripted bad request" }] },
  ]);
  await page.getByTestId("chat-input").fill("first");
  await page.getByTestId("chat-input").press("Enter");
  await expect(page.getByTestId("chat-retry")).toContainText("HTTP 529");
  await expect(page.getByTestId("message-assistant")).toContainText("Answered after a retry.");
  await expect(page.getByTestId("run-result")).toHaveAttribute("data-reason", "completed");

  await page.getByTestId("chat-input").fill("second");
  await page.getByTestId("chat-input").press("Enter");
  await expect(page.getByTestId("chat-error")).toContainText("scripted bad request");
  await expect(page.getByTestId("run-result").last()).toHaveAttribute("data-reason", "model_error");
});
