/// <reference lib="dom" />
import { mkdirSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { test as base, expect, type Page } from "@playwright/test";

const artifactsDir = join(dirname(fileURLToPath(import.meta.url)), "..", "artifacts");

/** `url`: the IDE's own `cairn-<random>.localhost` address; `loopbackUrl`: the same server at 127.0.0.1. */
export type E2eEnv = { url: string; loopbackUrl: string; token: string; loginUrl: string; workspace: string; simUrl: string };

type ScriptedBlock =
  | { type: "text"; text: string }
  | { type: "thinking"; thinking: string }
  | { type: "tool_use"; id?: string; name: string; input: Record<string, unknown> };
type Fault = { kind: "http"; status: number; retryAfter?: number; message?: string } | { kind: "disconnect" | "stream-error"; afterEvents: number };
/** Which request a turn answers (the simulator's `match`): by default the next request of any kind. */
type TurnMatch = { model?: string; systemIncludes?: string; firstMessageIncludes?: string };
export type ScriptedTurn = {
  content: ScriptedBlock[];
  chunkDelayMs?: number;
  stop_reason?: "end_turn" | "tool_use" | "max_tokens";
  faults?: Fault[];
  match?: TurnMatch;
  usage?: { input_tokens?: number; output_tokens?: number };
};
export type RecordedRequest = { path: string; body: unknown; turnIndex: number | null };

export type Sim = {
  url: string;
  /** Replaces the script and clears the request log. */
  script(turns: ScriptedTurn[]): Promise<void>;
  requests(): Promise<RecordedRequest[]>;
};

function env(name: string): string {
  const value = process.env[name];
  if (!value) throw new Error(`${name} is not set: run the e2e tests through playwright.config.ts (its global setup starts the servers)`);
  return value;
}

export const test = base.extend<{ e2e: E2eEnv; sim: Sim; ide: Page; offsiteRequests: string[] }>({
  e2e: async ({}, use) => {
    await use({
      url: env("CAIRN_E2E_URL"),
      loopbackUrl: env("CAIRN_E2E_LOOPBACK_URL"),
      token: env("CAIRN_E2E_TOKEN"),
      loginUrl: env("CAIRN_E2E_LOGIN_URL"),
      workspace: env("CAIRN_E2E_WORKSPACE"),
      simUrl: env("CAIRN_E2E_SIM_URL"),
    });
  },
  sim: async ({ e2e }, use) => {
    const post = async (path: string, body?: unknown) => {
      const response = await fetch(`${e2e.simUrl}${path}`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      });
      if (!response.ok) throw new Error(`model-sim ${path}: ${response.status} ${await response.text()}`);
    };
    await use({
      url: e2e.simUrl,
      async script(turns) {
        await post("/_sim/reset");
        await post("/_sim/scenario", { turns });
      },
      async requests() {
        const response = await fetch(`${e2e.simUrl}/_sim/requests`);
        return (await response.json()) as RecordedRequest[];
      },
    });
  },
  /** Every request any page of the test made to a host other than loopback (127.0.0.1, localhost, *.localhost) (there must be none). */
  offsiteRequests: [
    async ({ context }, use) => {
      const offsite: string[] = [];
      context.on("request", (request) => {
        const url = new URL(request.url());
        if (url.protocol === "data:" || url.protocol === "blob:") return;
        if (url.hostname !== "127.0.0.1" && url.hostname !== "localhost" && !url.hostname.endsWith(".localhost")) offsite.push(request.url());
      });
      await use(offsite);
      expect(offsite, "requests that left loopback").toEqual([]);
    },
    { auto: true },
  ],
  /** The IDE, logged in with the printed token link, the trust question answered "not now" if it is asked. */
  ide: async ({ page, e2e }, use) => {
    await openIde(page, e2e.loginUrl);
    await use(page);
  },
});

export { expect };

export async function openIde(page: Page, loginUrl: string): Promise<void> {
  await page.goto(loginUrl);
  await expect(page.getByTestId("ide")).toBeVisible();
  await dismissTrust(page);
}

export async function dismissTrust(page: Page): Promise<void> {
  const decline = page.getByTestId("trust-decline");
  // The dialog renders with the page: it is there at once or not at all.
  if (await decline.isVisible()) await decline.click();
}

/**
 * Starts a new session and waits until its event stream is live. Until then the chat input is disabled, and a
 * prompt typed in the moment between the click and that re-render would be dropped by its Enter.
 */
export async function startNewSession(page: Page): Promise<string> {
  const chat = page.getByTestId("chat");
  const before = (await chat.getAttribute("data-session-id")) ?? "";
  await page.getByTestId("session-new").click();
  await expect(chat).not.toHaveAttribute("data-session-id", before);
  await expect(chat).toHaveAttribute("data-stream", "live");
  return (await chat.getAttribute("data-session-id")) ?? "";
}

export async function screenshot(page: Page, name: string): Promise<void> {
  mkdirSync(artifactsDir, { recursive: true });
  await page.screenshot({ path: join(artifactsDir, `${name}.png`), fullPage: false });
}

/** The text of a Monaco editor (the visible lines), as a user would read it. */
export async function editorText(page: Page, selector = '[data-testid="editor"] .monaco-editor'): Promise<string> {
  return page
    .locator(selector)
    .first()
    .evaluate((element) => {
      const lines = [...element.querySelectorAll(".view-lines .view-line")] as HTMLElement[];
      return lines
        .map((line) => ({ top: Number.parseFloat(line.style.top || "0"), text: (line.textContent ?? "").replace(/\u00a0/g, " ") }))
        .sort((left, right) => left.top - right.top)
        .map((line) => line.text)
        .join("\n");
    });
}
