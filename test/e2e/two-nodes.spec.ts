/// <reference lib="dom" />
import { join } from "node:path";
import { readFileSync, rmSync } from "node:fs";
import type { BrowserContext, Page } from "@playwright/test";
import postgres from "postgres";
import { startPrivatePostgres, startPrivateRedis, type PrivateService } from "@cairn/api/distributed-testing";
import { dismissTrust, expect, openIde, test, type ScriptedTurn } from "./support/fixtures.ts";
import { killGroup } from "./support/processes.ts";
import { startCairn, tempDir, type CairnProcess } from "./support/servers.ts";
import { strictlyIncreasing, tapSessionEvents, type SessionEventsTap, type TappedEvent } from "./support/session-events-tap.ts";
import { writeWorkspace } from "./support/workspace-fixture.ts";

// Two `cairn serve` nodes (separate processes) over one private PostgreSQL and Redis, with the shared model simulator:
// a browser on node A runs the agent, a second browser follows on node B, moves between nodes mid-stream, opens A's share
// link on B, and takes the session over on B when A is killed with SIGKILL mid-run.
// Not covered here: a remote worker host (`cairn serve --worker-url`), which the nodes cannot use yet.

const words = (prefix: string, count: number) => Array.from({ length: count }, (_, index) => `${prefix}${index + 1}`).join(" ");
const FIRST_ANSWER = `The README describes a small sample project. ${words("alpha", 40)}`;
const SECOND_ANSWER = `Second answer, streamed slowly. ${words("beta", 300)}`;
// About 35 s of streaming: long enough never to end before the kill, however slow the machine.
const CUT_ANSWER = `This answer is cut off by the kill. ${words("gamma", 1_200)}`;
const NODE_A = "e2e-node-a";
const NODE_B = "e2e-node-b";

let database: PrivateService;
let redis: PrivateService;
let workspace: string;
let nodeA: CairnProcess;
let nodeB: CairnProcess;
let sql: postgres.Sql;

test.beforeAll(async () => {
  test.setTimeout(120_000);
  [database, redis] = await Promise.all([startPrivatePostgres(), startPrivateRedis()]);
  sql = postgres(database.url, { max: 1, onnotice: () => undefined });
  workspace = tempDir("cairn-e2e-two-nodes-");
  writeWorkspace(workspace);
  const modelUrl = process.env.CAIRN_E2E_SIM_URL;
  if (!modelUrl) throw new Error("CAIRN_E2E_SIM_URL is not set: run through playwright.config.ts");
  const node = (nodeId: string) =>
    startCairn({ workspace, modelUrl, extraArgs: ["--redis-url", redis.url, "--database-url", database.url, "--node-id", nodeId] });
  // One after the other: the second waits for the first's migrations anyway, and the machine is small.
  nodeA = await node(NODE_A);
  nodeB = await node(NODE_B);
});

// A failed run keeps what each node logged (structured lines with its node id), to tell which node did what.
test.afterEach(async ({}, testInfo) => {
  if (testInfo.status === testInfo.expectedStatus) return;
  for (const node of [nodeA, nodeB]) if (node) await testInfo.attach(`${new URL(node.url).port}.log`, { body: node.output(), contentType: "text/plain" });
});

test.afterAll(async () => {
  await nodeA?.stop();
  await nodeB?.stop();
  await sql?.end();
  await Promise.all([database?.stop(), redis?.stop()]);
  if (workspace) rmSync(workspace, { recursive: true, force: true });
});

/** A page with an event tap in `context` (attached before it loads), on `url`. */
async function openTab(context: BrowserContext, url: string): Promise<{ page: Page; tap: SessionEventsTap }> {
  const page = await context.newPage();
  const tap = await tapSessionEvents(context, page);
  await openIde(page, url);
  return { page, tap };
}

/** The lines of a session's transcript in PostgreSQL, in order. */
async function transcriptLines(sessionId: string): Promise<string[]> {
  return (await sql<{ line: string }[]>`select line from cairn_transcript_lines where session_id = ${sessionId} order by line_no`).map((row) => row.line);
}

/**
 * The conversation a tab holds (the chat list is virtualised, so the DOM has only what is scrolled into view): its
 * prompts and its assistant texts, read from the view the tab saves when it is hidden.
 */
async function heldConversation(page: Page, sessionId: string): Promise<{ prompts: string[]; answers: string[] }> {
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
const nonDeltas = (events: readonly TappedEvent[]) => events.filter((event) => !event.type.endsWith("-delta"));
const deltaText = (events: readonly TappedEvent[]) => events.flatMap((event) => (event.type === "text-delta" ? [event.text ?? ""] : [])).join("");

test("two API nodes: a run on A followed live on B, A's share link on B, a tab moved from A to B mid-stream, kill -9 of A and the session goes on on B", async ({
  browser,
  sim,
}) => {
  // About 60 s on an idle machine; several times that on a loaded one (kill -9 alone waits out the 8 s lease).
  test.setTimeout(300_000);
  const readme = join(workspace, "README.md");
  const scripted: ScriptedTurn[] = [
    {
      chunkDelayMs: 30,
      content: [
        { type: "text", text: `Let me read the README and note it down. ${words("step", 30)}` },
        { type: "tool_use", name: "Read", input: { file_path: readme } },
        { type: "tool_use", name: "Bash", input: { command: "echo 'A small sample project.' > notes/summary.txt", description: "Note the summary" } },
      ],
    },
    { chunkDelayMs: 40, content: [{ type: "text", text: FIRST_ANSWER }] },
    { chunkDelayMs: 80, content: [{ type: "text", text: SECOND_ANSWER }] },
    { chunkDelayMs: 50, content: [{ type: "text", text: CUT_ANSWER }] },
    { content: [{ type: "text", text: "Resumed on node B with the whole history." }] },
  ];
  await sim.script(scripted);

  const runnerContext = await browser.newContext();
  const runner = await openTab(runnerContext, nodeA.loginUrl);
  await runner.page.getByTestId("session-new").click();
  await expect(runner.page.getByTestId("chat")).toHaveAttribute("data-session-id", /\S/);
  const sessionId = (await runner.page.getByTestId("chat").getAttribute("data-session-id"))!;
  // The second browser: signed in on node B first, then on node A for the move.
  const second = await browser.newContext();

  await test.step("a tab on node B follows the run on node A live and is sent the same events", async () => {
    const follower = await openTab(second, nodeB.loginUrl);
    await runner.page.getByTestId("chat-input").fill("Read the README and summarise it");
    await runner.page.getByTestId("chat-input").press("Enter");
    // Node B lists the session once A has written its first line (before that only A knows it); B's tab opens it from the list.
    await expect.poll(async () => (await transcriptLines(sessionId)).length).toBeGreaterThan(0);
    await follower.page.getByTestId("session-list-toggle").click();
    await follower.page.locator(`[data-testid="session-list-item"][data-session-id="${sessionId}"]`).click();
    await expect(follower.page.getByTestId("chat")).toHaveAttribute("data-session-id", sessionId);
    await expect(follower.page.getByTestId("message-user")).toHaveText("Read the README and summarise it");
    // The run waits for the command to be allowed: B shows the same prompt, and the answer given on A ends it on both.
    for (const page of [runner.page, follower.page]) await expect(page.getByTestId("permission-prompt")).toHaveAttribute("data-tool-name", "Bash");
    // On a loaded machine a tab may miss pings and reconnect, redrawing the prompt meanwhile: click until it is answered.
    await expect(async () => {
      const allow = runner.page.getByTestId("permission-allow-once");
      if (await allow.isVisible()) await allow.click({ timeout: 2_000 });
      await expect(runner.page.getByTestId("permission-prompt")).toBeHidden({ timeout: 2_000 });
    }).toPass({ timeout: 30_000 });
    await expect(follower.page.getByTestId("permission-prompt")).toBeHidden();
    for (const page of [runner.page, follower.page]) {
      await expect(page.locator('[data-testid="tool-call"][data-tool-name="Bash"]')).toHaveAttribute("data-status", "completed");
      await expect(page.locator('[data-testid="tool-call"][data-tool-name="Read"]')).toHaveAttribute("data-status", "completed");
      await expect(page.getByTestId("message-assistant").last()).toHaveText(FIRST_ANSWER);
      await expect(page.getByTestId("run-result")).toHaveAttribute("data-reason", "completed");
    }
    expect(readFileSync(join(workspace, "notes", "summary.txt"), "utf8")).toBe("A small sample project.\n");
    // The same stream on both nodes: every event but the deltas under the same id, the text deltas adding up to the same
    // text, each tab's ids strictly increasing. B read a snapshot first and streams after its id; A's tab made the session.
    const [snapshotId] = follower.tap.resumedAfter();
    const onA = runner.tap.events().filter((event) => event.id > Number(snapshotId ?? 0));
    const onB = follower.tap.events();
    expect(strictlyIncreasing(onA.map((event) => event.id))).toBe(true);
    expect(strictlyIncreasing(onB.map((event) => event.id))).toBe(true);
    expect(nonDeltas(onB).length).toBeGreaterThan(4);
    expect(nonDeltas(onB)).toEqual(nonDeltas(onA));
    expect(deltaText(onB)).toBe(deltaText(onA));
    // B followed while the answer streamed: it was sent the answer's deltas, not only a snapshot after the run.
    expect(deltaText(onB)).toContain(FIRST_ANSWER);

    await test.step("a share link made on node A opens on node B", async () => {
      await runner.page.getByTestId("share-button").click();
      const dialog = runner.page.getByTestId("share-dialog");
      await dialog.getByTestId("share-mode-snapshot").check();
      await expect(dialog.getByTestId("share-preview")).toBeVisible();
      await dialog.getByTestId("share-create").click();
      await expect(dialog.getByTestId("share-url")).toHaveValue(/\/share\/\S+$/);
      const madeOnA = new URL(await dialog.getByTestId("share-url").inputValue());
      expect(madeOnA.origin).toBe(new URL(nodeA.url).origin);
      await dialog.getByTestId("share-done").click();
      await follower.page.goto(`${nodeB.url}${madeOnA.pathname}`);
      await expect(follower.page.getByTestId("share-view")).toBeVisible();
      await expect(follower.page.getByTestId("message-user").first()).toHaveText("Read the README and summarise it");
      await expect(follower.page.getByTestId("message-assistant").last()).toContainText("alpha40");
      await follower.page.close();
    });
  });

  // The tab that moves to node B mid-stream and then follows the session there while node A is killed.
  let onB: { page: Page; tap: SessionEventsTap } | undefined;
  await test.step("a tab moved from node A to node B mid-stream resumes after its last event: no gap, no duplicate", async () => {
    const tab = await openTab(second, `${nodeA.loginUrl}&session=${sessionId}`);
    // Opened from a snapshot: the transcript, without the markers of runs that ended before.
    await expect(tab.page.getByTestId("message-assistant").last()).toHaveText(FIRST_ANSWER);
    await runner.page.getByTestId("chat-input").fill("Tell me more");
    await runner.page.getByTestId("chat-input").press("Enter");
    await expect(tab.page.getByTestId("message-assistant").last()).toContainText("beta10");
    // The tab saves its view as when it is hidden, and the saved view (with the id of the last event it applied) is what
    // it resumes from: carried to a tab of the same browser on node B.
    const saved = await tab.page.evaluate((key) => {
      window.dispatchEvent(new Event("pagehide"));
      return window.sessionStorage.getItem(key);
    }, `cairn:chat:${sessionId}`);
    if (saved === null) throw new Error("the tab saved no view");
    const savedState = (JSON.parse(saved) as { state: { lastEventId: string; running: boolean } }).state;
    expect(savedState.running, "the tab moves while the run streams").toBe(true);
    const lastApplied = Number(savedState.lastEventId);
    const shownOnA = tab.tap.events().filter((event) => event.id <= lastApplied);
    await tab.page.close();

    const moved = await second.newPage();
    await moved.addInitScript(
      ({ key, value, session }) => {
        window.sessionStorage.setItem(key, value);
        window.sessionStorage.setItem("cairn:active-session", session);
      },
      { key: `cairn:chat:${sessionId}`, value: saved, session: sessionId },
    );
    const movedTap = await tapSessionEvents(second, moved);
    await moved.goto(nodeB.url);
    await expect(moved.getByTestId("ide")).toBeVisible();
    await dismissTrust(moved);
    await expect(moved.getByTestId("message-assistant").last()).toHaveText(SECOND_ANSWER);
    await expect(moved.getByTestId("run-result")).toHaveAttribute("data-reason", "completed");
    expect(movedTap.resumedAfter()).toEqual([String(lastApplied)]);
    const shownOnB = movedTap.events();
    expect(shownOnB.length).toBeGreaterThan(0);
    const ids = [...shownOnA, ...shownOnB].map((event) => event.id);
    expect(strictlyIncreasing(ids), `ids ${ids.join(",")}`).toBe(true);
    // Every event of the runner's stream after the tab's last one reached the moved tab (deltas possibly joined).
    const rest = runner.tap.events().filter((event) => event.id > lastApplied);
    expect(nonDeltas(shownOnB)).toEqual(nonDeltas(rest));
    expect(deltaText(shownOnB)).toBe(deltaText(rest));
    onB = { page: moved, tap: movedTap };
  });

  await test.step("kill -9 of node A mid-run: node B takes over within 10 s, keeps every line, and answers the next prompt with the history", async () => {
    if (!onB) throw new Error("no tab on node B");
    const follower = onB.page;
    await runner.page.getByTestId("chat-input").fill("Write a very long answer");
    await runner.page.getByTestId("chat-input").press("Enter");
    await expect(follower.getByTestId("message-assistant").last()).toContainText("gamma5");
    await expect(follower.getByTestId("chat")).toHaveAttribute("data-running", "true");
    const before = await transcriptLines(sessionId);
    const heldBefore = await heldConversation(follower, sessionId);
    expect(heldBefore.prompts).toEqual(["Read the README and summarise it", "Tell me more", "Write a very long answer"]);

    const killedAt = Date.now();
    await killGroup(nodeA.child);
    await expect
      .poll(async () => (await sql<{ owner: string | null }[]>`select owner from cairn_session_leases where session_id = ${sessionId}`)[0]?.owner, {
        timeout: 15_000,
        intervals: [100],
      })
      .toBe(NODE_B);
    const takeoverMs = Date.now() - killedAt;
    expect(takeoverMs, "kill -9 to node B holding the lease").toBeLessThanOrEqual(10_000);
    await expect(follower.locator('[data-testid="chat-notice"][data-code="turn_interrupted"]')).toBeVisible();
    await expect(follower.getByTestId("chat")).toHaveAttribute("data-running", "false");

    // Every line written before the kill is still there, unchanged; the tab still shows every prompt and answer.
    const after = await transcriptLines(sessionId);
    expect(after.slice(0, before.length)).toEqual(before);
    const heldAfter = await heldConversation(follower, sessionId);
    expect(heldAfter.prompts).toEqual(heldBefore.prompts);
    expect(heldAfter.answers.filter((answer) => answer === FIRST_ANSWER || answer === SECOND_ANSWER)).toEqual([FIRST_ANSWER, SECOND_ANSWER]);

    await follower.getByTestId("chat-input").fill("Carry on after the takeover");
    await follower.getByTestId("chat-input").press("Enter");
    await expect(follower.getByTestId("message-assistant").last()).toHaveText("Resumed on node B with the whole history.");
    const requests = (await sim.requests()).filter((request) => request.path.startsWith("/v1/messages") && !request.path.includes("count_tokens"));
    const last = requests.at(-1)?.body as { messages: Array<{ role: string; content: string | Array<Record<string, unknown>> }> };
    expect(JSON.stringify(last.messages)).toContain("Carry on after the takeover");
    expectWellFormedHistory(last.messages);
    const history = JSON.stringify(last.messages);
    for (const expected of [
      "Read the README and summarise it",
      "A small project the e2e tests work on.",
      "alpha40",
      "Tell me more",
      "beta300",
      "Write a very long answer",
    ])
      expect(history).toContain(expected);
  });
  await second.close();
  await runnerContext.close();
});

/** Roles alternate from the first prompt to the last one, and each tool_use is answered in the next message. */
function expectWellFormedHistory(messages: Array<{ role: string; content: string | Array<Record<string, unknown>> }>): void {
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
