/// <reference lib="dom" />
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { expect, screenshot, test } from "./support/fixtures.ts";

type XssWindow = Window & { __xss?: string };

test("HTML and script in prompts, model output and tool output render as text", async ({ ide: page, e2e, sim }) => {
  const file = join(e2e.workspace, "notes", "payload.html");
  writeFileSync(file, `<img src=x onerror="window.__xss='tool'"><script>window.__xss='tool-script'</script>\n`);
  await sim.script([
    {
      content: [
        { type: "thinking", thinking: "Thinking about <script>window.__xss='thinking'</script> first." },
        {
          type: "text",
          text: [
            `Model says <img src=x onerror="window.__xss='model'"> and <script>window.__xss='model-script'</script>.`,
            "",
            "A [link](javascript:window.__xss='link') and an image ![pixel](http://203.0.113.9/pixel.png) and **bold text**.",
          ].join("\n"),
        },
        { type: "tool_use", name: "Read", input: { file_path: file } },
      ],
    },
    { content: [{ type: "text", text: "Read it." }] },
  ]);

  const prompt = `<b>not bold</b><img src=x onerror="window.__xss='prompt'">`;
  await page.getByTestId("chat-input").fill(prompt);
  await page.getByTestId("chat-input").press("Enter");
  await expect(page.getByTestId("run-result")).toHaveAttribute("data-reason", "completed");

  const list = page.getByTestId("message-list");
  await expect(page.getByTestId("message-user")).toHaveText(prompt);
  const answer = page.getByTestId("message-assistant").first();
  await expect(answer).toContainText(`Model says <img src=x onerror="window.__xss='model'">`);
  await expect(answer).toContainText("<script>window.__xss='model-script'</script>");
  await expect(answer.locator("strong")).toHaveText("bold text");
  await expect(answer).toContainText("[image: pixel] http://203.0.113.9/pixel.png");
  await expect(page.locator('[data-testid="tool-call"][data-tool-name="Read"] [data-testid="tool-result"]')).toContainText(
    `<img src=x onerror="window.__xss='tool'">`,
  );

  // Thinking is collapsed until asked for, and then it is text too.
  const thinking = answer.getByTestId("thinking");
  await expect(thinking).toContainText("Thought");
  await expect(thinking).not.toContainText("Thinking about");
  await thinking.getByRole("button").click();
  await expect(thinking).toContainText("Thinking about <script>window.__xss='thinking'</script> first.");

  await expect(list.locator("img")).toHaveCount(0);
  await expect(list.locator("script")).toHaveCount(0);
  await expect(list.locator("b")).toHaveCount(0);
  const link = answer.locator("a", { hasText: "link" });
  await expect(link).toHaveCount(1);
  expect(await link.getAttribute("href")).not.toMatch(/^javascript:/i);
  await expect(link).toHaveAttribute("rel", /noreferrer/);
  expect(await page.evaluate(() => (window as XssWindow).__xss)).toBeUndefined();
  await screenshot(page, "xss-as-text");
});
