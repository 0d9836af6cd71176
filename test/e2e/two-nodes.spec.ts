/// <reference lib="dom" />
import { randomBytes } from "node:crypto";
import { existsSync, readFileSync, rmSync } from "node:fs";
import { join } from "node:path";
import type { BrowserContext, Page } from "@playwright/test";
import postgres from "postgres";
import { startPrivatePostgres, startPrivateRedis, type PrivateService } from "@cairn/api/distributed-testing";
import { dismissTrust, expect, openIde, test, type ScriptedTurn } from "./support/fixtures.ts";
import { killGroup } from "./support/processes.ts";
import { RoundRobinProxy } from "./support/round-robin-proxy.ts";
import { startCairn, startCairnWorker, tempDir, type CairnProcess, type WorkerProcess } from "./support/servers.ts";
import { strictlyIncreasing, tapSessionEvents, type SessionEventsTap } from "./support/session-events-tap.ts";
import { allowBashOnce, deltaText, expectWellFormedHistory, heldConversation, nonDeltas, sendPrompt } from "./support/two-nodes-support.ts";
import { writeWorkspace } from "./support/workspace-fixture.ts";

// Two `cairn serve` nodes and one `cairn worker` host (separate processes) over one private PostgreSQL and Redis, with the
// shared model simulator: a browser on node A runs the agent, a second browser follows on node B from the session's
// creation, moves between nodes mid-stream and opens A's share link on B; a third browser goes through a load balancer
// that sends each request to the next node (no sticky sessions); node A is killed with SIGKILL mid-run and B takes the
// session over; the worker is killed mid-tool; Redis, then PostgreSQL, restart during the session.

const words = (prefix: string, count: number) => Array.from({ length: count }, (_, index) => `${prefix}${index + 1}`).join(" ");
const FIRST_ANSWER = `The README describes a small sample project. ${words("alpha", 40)}`;
const SECOND_ANSWER = `Second answer, streamed slowly. ${words("beta", 300)}`;
// About 35 s of streaming: long enough never to end before the kill, however slow the machine.
const CUT_ANSWER = `This answer is cut off by the kill. ${words("gamma", 1_200)}`;
const NODE_A = "e2e-node-a";
const NODE_B = "e2e-node-b";
const WORKER_TOKEN = `e2e-worker-${randomBytes(16).toString("hex")}`;

let database: PrivateService;
let redis: PrivateService;
let workerRoot: string;
let workspace: string;
let worker: WorkerProcess;
let proxy: RoundRobinProxy;
let nodeA: CairnProcess;
let nodeB: CairnProcess;
let sql: postgres.Sql;

test.beforeAll(async () => {
  test.setTimeout(180_000);
  // Redis keeps its streams on disk (appendonly), as in production: a restart loses no event.
  [database, redis] = await Promise.all([startPrivatePostgres(), startPrivateRedis({ persistent: true })]);
  sql = postgres(database.url, { max: 1, onnotice: () => undefined });
  // The workspace lives on the worker host, under its root; the API nodes name it.
  workerRoot = tempDir("cairn-e2e-two-nodes-");
  workspace = join(workerRoot, "project");
  writeWorkspace(workspace);
  const modelUrl = process.env.CAIRN_E2E_SIM_URL;
  if (!modelUrl) throw new Error("CAIRN_E2E_SIM_URL is not set: run through playwright.config.ts");
  worker = await startCairnWorker({ root: workerRoot, token: WORKER_TOKEN });
  // The load balancer listens first: the nodes must allow its origin (--allowed-host) for the changes a browser sends through it.
  proxy = await RoundRobinProxy.start();
  const token = randomBytes(24).toString("hex");
  const node = (nodeId: string) =>
    startCairn({
      workspace: "project",
      modelUrl,
      token,
      env: { CAIRN_WORKER_TOKEN: WORKER_TOKEN },
      extraArgs: [
        ...["--redis-url", redis.url, "--database-url", database.url, "--node-id", nodeId],
        ...["--worker-url", worker.url, "--allowed-host", `127.0.0.1:${proxy.port}`],
      ],
    });
  // One after the other: the second waits for the first's migrations anyway, and the machine is small.
  nodeA = await node(NODE_A);
  nodeB = await node(NODE_B);
  proxy.route([nodeA.loopbackUrl, nodeB.loopbackUrl]);
});

// A failed run keeps what each node logged (structured lines with its node id), to tell which node did what.
test.afterEach(async ({}, testInfo) => {
  if (testInfo.status === testInfo.expectedStatus) return;
  for (const node of [nodeA, nodeB]) if (node) await testInfo.attach(`${new URL(node.url).port}.log`, { body: node.output(), contentType: "text/plain" });
  if (worker) await testInfo.attach("worker.log", { body: worker.output(), contentType: "text/plain" });
});

test.afterAll(async () => {
  await nodeA?.stop();
  await nodeB?.stop();
  await worker?.stop();
  await proxy?.close();
  await sql?.end();
  await Promise.all([database?.stop(), redis?.stop()]);
  if (workerRoot) rmSync(workerRoot, { recursive: true, force: true });
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

test("two API nodes and a worker host: a run on A followed live on B from its creation, A's share link on B, a tab moved from A to B mid-stream, one sign-in through a load balancer, kill -9 of A, of the worker mid-tool, Redis and PostgreSQL restarts", async ({
  browser,
  sim,
}) => {
  // About 90 s on an idle machine; several times that on a loaded one (kill -9 alone waits out the 8 s lease).
  test.setTimeout(420_000);
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
    { content: [{ type: "tool_use", name: "Bash", input: { command: `touch ${join(workspace, "slow-started")} && sleep 60`, description: "Slow" } }] },
    { content: [{ type: "text", text: "The worker went away." }] },
    {
      content: [
        {
          type: "tool_use",
          name: "Bash",
          input: { command: `touch ${join(workspace, "after-restart")} && echo after-the-worker-restart`, description: "Again" },
        },
      ],
    },
    { content: [{ type: "text", text: "The worker is back." }] },
    { content: [{ type: "text", text: "Answered after Redis came back." }] },
    { content: [{ type: "text", text: "Answered after PostgreSQL came back." }] },
  ];
  await sim.script(scripted);

  const runnerContext = await browser.newContext();
  const runner = await openTab(runnerContext, nodeA.loginUrl);
  await runner.page.getByTestId("session-new").click();
  await expect(runner.page.getByTestId("chat")).toHaveAttribute("data-session-id", /\S/);
  const sessionId = (await runner.page.getByTestId("chat").getAttribute("data-session-id"))!;
  // The second browser: signed in on node B first, then on node A for the move.
  const second = await browser.newContext();

  await test.step("a tab on node B follows the run on node A live from the session's creation and is sent the same events", async () => {
    // Opened on B before anything is stored: the session is known to the cluster from its creation (its lease).
    expect(await transcriptLines(sessionId)).toEqual([]);
    const follower = await openTab(second, `${nodeB.loginUrl}&session=${sessionId}`);
    await expect(follower.page.getByTestId("chat")).toHaveAttribute("data-session-id", sessionId);
    await sendPrompt(runner.page, "Read the README and summarise it");
    await expect(follower.page.getByTestId("message-user")).toHaveText("Read the README and summarise it");
    // The run waits for the command to be allowed: B shows the same prompt, and the answer given on A ends it on both.
    await expect(follower.page.getByTestId("permission-prompt")).toHaveAttribute("data-tool-name", "Bash");
    await allowBashOnce(runner.page);
    await expect(follower.page.getByTestId("permission-prompt")).toBeHidden();
    for (const page of [runner.page, follower.page]) {
      await expect(page.locator('[data-testid="tool-call"][data-tool-name="Bash"]')).toHaveAttribute("data-status", "completed");
      await expect(page.locator('[data-testid="tool-call"][data-tool-name="Read"]')).toHaveAttribute("data-status", "completed");
      await expect(page.getByTestId("message-assistant").last()).toHaveText(FIRST_ANSWER);
      await expect(page.getByTestId("run-result")).toHaveAttribute("data-reason", "completed");
    }
    expect(readFileSync(join(workspace, "notes", "summary.txt"), "utf8")).toBe("A small sample project.\n");
    // The same stream on both nodes, from its first event: every event but the deltas under the same id, the text deltas
    // adding up to the same text, each tab's ids strictly increasing.
    const onA = runner.tap.events();
    const onB = follower.tap.events();
    expect(onB[0]?.id, "B's tab was sent the session's first event").toBe(onA[0]?.id);
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
    await sendPrompt(runner.page, "Tell me more");
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

  await test.step("one sign-in through a load balancer that sends each request to the next node: no sticky sessions", async () => {
    const balanced = await browser.newContext();
    const before = proxy.served.length;
    // Signed in by whichever node answers the link; the page, its API calls and its event stream then alternate between nodes.
    const tab = await openTab(balanced, `${proxy.url}/?token=${nodeA.token}&session=${sessionId}`);
    await expect(tab.page.getByTestId("message-assistant").last()).toHaveText(SECOND_ANSWER);
    // A change through the load balancer: a new session, then back to the shared one from the list.
    await tab.page.getByTestId("session-new").click();
    await expect(tab.page.getByTestId("chat")).not.toHaveAttribute("data-session-id", sessionId);
    await tab.page.getByTestId("session-list-toggle").click();
    await tab.page.locator(`[data-testid="session-list-item"][data-session-id="${sessionId}"]`).click();
    await expect(tab.page.getByTestId("message-assistant").last()).toHaveText(SECOND_ANSWER);
    const api = proxy.served.slice(before).filter((request) => request.path.startsWith("/api/"));
    for (const node of [nodeA, nodeB])
      expect(api.filter((request) => request.upstream === node.loopbackUrl && request.status === 200).length).toBeGreaterThan(2);
    expect(api.filter((request) => request.method === "POST" && request.status === 200).length).toBeGreaterThan(0);
    expect(api.filter((request) => request.status === 401 || request.status === 403)).toEqual([]);
    await balanced.close();
  });

  await test.step("kill -9 of node A mid-run: node B takes over within 10 s, keeps every line, and answers the next prompt with the history", async () => {
    if (!onB) throw new Error("no tab on node B");
    const follower = onB.page;
    await sendPrompt(runner.page, "Write a very long answer");
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

    await sendPrompt(follower, "Carry on after the takeover");
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

  await test.step("the worker host killed mid-tool: the call becomes a tool error, and the next call works once it is back", async () => {
    if (!onB) throw new Error("no tab on node B");
    const follower = onB.page;
    await sendPrompt(follower, "Run the slow command");
    await allowBashOnce(follower);
    await expect.poll(() => existsSync(join(workspace, "slow-started")), { timeout: 30_000 }).toBe(true);
    await killGroup(worker.child);
    const slow = follower.locator('[data-testid="tool-call"][data-tool-name="Bash"]').last();
    await expect(slow).toHaveAttribute("data-status", "error");
    await expect(slow.getByTestId("tool-result")).toContainText("remote workspace worker is unreachable");
    await expect(follower.getByTestId("message-assistant").last()).toHaveText("The worker went away.");
    await worker.stop();
    worker = await startCairnWorker({ root: workerRoot, token: WORKER_TOKEN, port: worker.port });
    await sendPrompt(follower, "Try it again");
    await allowBashOnce(follower);
    const again = follower.locator('[data-testid="tool-call"][data-tool-name="Bash"]').last();
    await expect(again).toHaveAttribute("data-status", "completed");
    await expect(again.getByTestId("tool-result")).toContainText("after-the-worker-restart");
    expect(existsSync(join(workspace, "after-restart"))).toBe(true);
    await expect(follower.getByTestId("message-assistant").last()).toHaveText("The worker is back.");
  });

  await test.step("Redis, then PostgreSQL, restarted during the session: the next prompts are answered and every line is kept", async () => {
    if (!onB) throw new Error("no tab on node B");
    const follower = onB.page;
    const ready = async () => (await fetch(`${nodeB.loopbackUrl}/readyz`)).status;
    const before = await transcriptLines(sessionId);
    await redis.restart({ downMs: 500 });
    await expect.poll(ready, { timeout: 30_000 }).toBe(200);
    // The chat list is virtualised (what is rendered follows the scroll position): read the answers the tab holds.
    const answers = async () => (await heldConversation(follower, sessionId)).answers;
    await sendPrompt(follower, "Are you there after Redis?");
    await expect.poll(answers).toContain("Answered after Redis came back.");
    await database.restart({ downMs: 500 });
    await expect.poll(ready, { timeout: 30_000 }).toBe(200);
    await sendPrompt(follower, "Are you there after PostgreSQL?");
    await expect.poll(answers).toContain("Answered after PostgreSQL came back.");
    await expect(follower.getByTestId("chat")).toHaveAttribute("data-running", "false");
    const after = await transcriptLines(sessionId);
    expect(after.slice(0, before.length)).toEqual(before);
    expect(after.join("\n")).toContain("Answered after Redis came back.");
    expect(after.join("\n")).toContain("Answered after PostgreSQL came back.");
  });
  await second.close();
  await runnerContext.close();
});
