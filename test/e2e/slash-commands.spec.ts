import { existsSync, mkdirSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { expect, screenshot, startNewSession, test } from "./support/fixtures.ts";

type Body = { messages: Array<{ role: string; content: unknown }> };

const messagesOf = async (sim: { requests(): Promise<Array<{ path: string; body: unknown }>> }) =>
  (await sim.requests()).filter((request) => request.path === "/v1/messages").map((request) => JSON.stringify((request.body as Body).messages));

test.describe("slash commands in the chat", () => {
  let created: string[] = [];

  test.beforeEach(({ e2e }) => {
    // A project skill and a legacy command file in the shared workspace, removed again after the test.
    const claudeDir = join(e2e.workspace, ".claude");
    const made = [claudeDir, join(claudeDir, "skills"), join(claudeDir, "commands")].filter((dir) => !existsSync(dir));
    created = [join(claudeDir, "skills", "release-notes"), join(claudeDir, "commands", "shout.md"), ...made.reverse()];
    mkdirSync(join(claudeDir, "skills", "release-notes"), { recursive: true });
    writeFileSync(
      join(claudeDir, "skills", "release-notes", "SKILL.md"),
      "---\nname: release-notes\ndescription: Writes release notes from the changelog\nargument-hint: <version>\n---\n\nWrite the release notes for version $ARGUMENTS, in the RN-STYLE-7 format.\n",
    );
    mkdirSync(join(claudeDir, "commands"), { recursive: true });
    writeFileSync(join(claudeDir, "commands", "shout.md"), "---\ndescription: Says a word loudly\n---\nSay $1 in capitals.\n");
  });

  test.afterEach(() => {
    for (const path of created) rmSync(path, { recursive: true, force: true });
  });

  test("the menu opens on /, picking a skill sends its text with the arguments to the model", async ({ ide: page, sim }) => {
    await sim.script([{ content: [{ type: "text", text: "Release notes for 2.1.0 are written." }] }]);
    await startNewSession(page);
    const input = page.getByTestId("chat-input");
    await input.fill("/");
    const menu = page.getByTestId("slash-menu");
    await expect(menu).toBeVisible();
    for (const name of ["release-notes", "shout", "compact", "clear", "model", "help"])
      await expect(menu.locator(`[data-testid="slash-item"][data-name="${name}"]`)).toHaveCount(1);
    await expect(menu.locator('[data-testid="slash-item"][data-name="release-notes"]')).toContainText("Writes release notes from the changelog");
    await expect(menu.locator('[data-testid="slash-item"][data-name="release-notes"]')).toContainText("<version>");
    await screenshot(page, "slash-menu");

    // Typing narrows the list; Enter picks the highlighted command, then the arguments follow.
    await input.pressSequentially("rel");
    await expect(menu.getByTestId("slash-item")).toHaveCount(1);
    await input.press("Enter");
    await expect(input).toHaveValue("/release-notes ");
    await expect(menu).toBeHidden();
    await input.pressSequentially("2.1.0");
    await input.press("Enter");

    await expect(page.getByTestId("message-assistant").last()).toContainText("Release notes for 2.1.0 are written.");
    const sent = await messagesOf(sim);
    expect(sent).toHaveLength(1);
    expect(sent[0]).toContain("<command-name>/release-notes</command-name>");
    expect(sent[0]).toContain("Write the release notes for version 2.1.0, in the RN-STYLE-7 format.");
    expect(sent[0]).not.toContain("$ARGUMENTS");
  });

  test("a legacy command file runs with its positional argument", async ({ ide: page, sim }) => {
    await sim.script([{ content: [{ type: "text", text: "HELLO" }] }]);
    await startNewSession(page);
    const input = page.getByTestId("chat-input");
    await input.fill("/sh");
    await page.locator('[data-testid="slash-item"][data-name="shout"]').click();
    await expect(input).toHaveValue("/shout ");
    await input.pressSequentially("hello");
    await input.press("Enter");
    await expect(page.getByTestId("message-assistant").last()).toContainText("HELLO");
    const sent = await messagesOf(sim);
    expect(sent).toHaveLength(1);
    expect(sent[0]).toContain("Say hello in capitals.");
  });

  test("an unknown command is a clear error and sends nothing to the model", async ({ ide: page, sim }) => {
    await sim.script([{ content: [{ type: "text", text: "This must not be requested." }] }]);
    await startNewSession(page);
    const input = page.getByTestId("chat-input");
    await input.fill("/no-such-command");
    await expect(page.getByTestId("slash-menu")).toBeHidden();
    await input.press("Enter");
    const error = page.getByTestId("chat-action-error");
    await expect(error).toBeVisible();
    await expect(error).toContainText("Unknown command /no-such-command");
    await expect(error).toContainText("nothing was sent to the model");
    // The input keeps what was typed, to correct it.
    await expect(input).toHaveValue("/no-such-command");
    await expect(page.getByTestId("message-user")).toHaveCount(0);
    expect(await messagesOf(sim)).toEqual([]);
  });
});
