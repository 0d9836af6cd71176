/// <reference lib="dom" />
import type { Page } from "@playwright/test";
import { expect } from "./fixtures.ts";
import type { TappedEvent } from "./session-events-tap.ts";

/**
 * The conversation a tab holds (the chat list is virtualised, so the DOM has only what is scrolled into view): its
 * prompts and its assistant texts, read from the view the tab saves when it is hidden.
 */
export async function heldConversation(page: Page, sessionId: string): Promise<{ prompts: string[]; answers: string[] }> {
  const saved = await page.evaluate((key) => {
    window.dispatchEvent(new Event("pagehide"));
    return window.sessionStorage.getItem(key);
  }, `cairn:chat:${sessionId}`);
  if (saved === null) throw new Error("the tab saved no view");
  type Item = { kind: string; text?: string; blocks?: Array<{ type: string; text?: string }> };
  const items = (JSON.parse(saved) as { state: { items: Item[] } }).state.items;
  return {
    prompts: items.flatMap((item) => (item.kind === "user" ? [item.text ?? ""] : [])),
    answers: items.flatMap((item) =>
      item.kind === "assistant" ? [(item.blocks ?? []).map((block) => (block.type === "text" ? block.text : "")).join("")] : [],
    ),
  };
}

/** The events a lagging tab is sent as sent (deltas of text or tool input may reach it joined into fewer events). */
export const nonDeltas = (events: readonly TappedEvent[]) => events.filter((event) => !event.type.endsWith("-delta"));
export const deltaText = (events: readonly TappedEvent[]) => events.flatMap((event) => (event.type === "text-delta" ? [event.text ?? ""] : [])).join("");

/** Sends a prompt from the tab's chat input. */
export async function sendPrompt(page: Page, prompt: string): Promise<void> {
  await page.getByTestId("chat-input").fill(prompt);
  await page.getByTestId("chat-input").press("Enter");
}

/**
 * Answers the Bash permission prompt with "allow once". On a loaded machine a tab may miss pings and reconnect,
 * redrawing the prompt meanwhile: click until it is answered.
 */
export async function allowBashOnce(page: Page): Promise<void> {
  await expect(page.getByTestId("permission-prompt")).toHaveAttribute("data-tool-name", "Bash");
  await expect(async () => {
    const allow = page.getByTestId("permission-allow-once");
    if (await allow.isVisible()) await allow.click({ timeout: 2_000 });
    await expect(page.getByTestId("permission-prompt")).toBeHidden({ timeout: 2_000 });
  }).toPass({ timeout: 30_000 });
}

/** Roles alternate from the first prompt to the last one, and each tool_use is answered in the next message. */
export function expectWellFormedHistory(messages: Array<{ role: string; content: string | Array<Record<string, unknown>> }>): void {
  expect(messages.map((message) => message.role)).toEqual(messages.map((_, index) => (index % 2 === 0 ? "user" : "assistant")));
  expect(messages.at(-1)?.role).toBe("user");
  messages.forEach((message, index) => {
    if (typeof message.content === "string") return;
    for (const block of message.content) {
      if (block.type !== "tool_use") continue;
      const answer = messages[index + 1]?.content;
      expect(Array.isArray(answer) && answer.some((candidate) => candidate.type === "tool_result" && candidate.tool_use_id === block.id)).toBe(true);
    }
  });
}
