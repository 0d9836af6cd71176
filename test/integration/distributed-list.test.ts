import { readFileSync } from "node:fs";
import { readdir } from "node:fs/promises";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { CairnServer } from "@cairn/api";
import { apiClient, eventually, EventsSubscriber } from "./api-harness.ts";
import { type DistributedServices, startDistributedServices, startInProcessNode } from "./distributed-harness.ts";
import { runCairn } from "../support/cli.ts";
import { errorOf } from "./share-support.ts";

const claudeCodeFixture = join(import.meta.dirname, "..", "..", "packages", "core", "src", "timeline", "__fixtures__", "claude-code-explore-edit.jsonl");

/** Two API nodes over one PostgreSQL and one Redis: each node's session list shows the sessions the other runs, as the other does. */
describe("distributed mode: the session list on every node", () => {
  let services: DistributedServices;
  const nodes: CairnServer[] = [];

  beforeAll(async () => {
    // The answer stalls for 3 s mid-stream, so the session is seen running from the other node.
    const answer = {
      content: [{ type: "text" as const, text: "The answer, after a pause." }],
      faults: [{ kind: "stall" as const, afterEvents: 3, ms: 3_000 }],
    };
    const plain = (words: string) => ({ content: [{ type: "text" as const, text: words }] });
    services = await startDistributedServices({
      name: "list",
      scenario: {
        turns: [
          answer,
          plain("First timeline answer."),
          plain("Second timeline answer."),
          // A subagent: the parent calls Agent, the helper answers, the parent ends.
          { content: [{ type: "tool_use" as const, id: "toolu_helper", name: "Agent", input: { description: "Count the files", prompt: "Count them" } }] },
          plain("The helper's report: three files."),
          plain("The helper is done."),
        ],
      },
    });
    nodes.push(await startInProcessNode(services, "node-a"), await startInProcessNode(services, "node-b"));
  }, 120_000);

  afterAll(async () => {
    for (const node of nodes) await node.close();
    await services?.stop();
  });

  it("a session created on node A is in node B's list at once, and its title, run and messages reach B's list as they change on A", async () => {
    const [nodeA, nodeB] = nodes;
    if (!nodeA || !nodeB) throw new Error("two nodes expected");
    const clientA = apiClient(nodeA.url, nodeA.token);
    const clientB = apiClient(nodeB.url, nodeB.token);
    const entryOn = async (client: typeof clientA, sessionId: string) => (await client.session.list.query()).find((entry) => entry.sessionId === sessionId);

    const { sessionId } = await clientA.session.create.mutate();
    // Nothing is stored yet; B lists it as A does, right after the create returned.
    expect(await nodeA.runtime.transcripts.load(sessionId)).toBeUndefined();
    const onA = await entryOn(clientA, sessionId);
    expect(onA).toMatchObject({ title: "New session", running: false, messageCount: 0 });
    expect(await entryOn(clientB, sessionId)).toEqual({ ...onA, updatedAt: expect.any(String) });

    // A tab on B follows it (B holds a follower's copy now); B's list still follows what A does.
    const tab = new EventsSubscriber(nodeB.url, nodeB.token, sessionId);
    await eventually(() => expect(nodeB.hub.bus.listenerCount(sessionId)).toBe(1), 30_000);
    await clientA.session.send.mutate({ sessionId, prompt: "List me on every node" });
    await eventually(async () => expect(await entryOn(clientB, sessionId)).toMatchObject({ title: "List me on every node", running: true }), 30_000);
    expect(await entryOn(clientA, sessionId)).toMatchObject({ title: "List me on every node", running: true });

    await eventually(() => expect(tab.events().some((event) => event.type === "result")).toBe(true), 60_000);
    await eventually(async () => expect(await entryOn(clientB, sessionId)).toMatchObject({ running: false, messageCount: 2 }), 30_000);
    expect(await entryOn(clientA, sessionId)).toMatchObject({ running: false, messageCount: 2 });
    await tab.stop();
    expect(tab.errors).toEqual([]);
  }, 120_000);

  it("a session's timeline on node B is built from PostgreSQL, current after each of node A's turns and not rebuilt in between", async () => {
    const [nodeA, nodeB] = nodes;
    if (!nodeA || !nodeB) throw new Error("two nodes expected");
    const clientA = apiClient(nodeA.url, nodeA.token);
    const clientB = apiClient(nodeB.url, nodeB.token);
    const finished = async (sessionId: string) => eventually(async () => expect((await clientA.session.get.query({ sessionId })).running).toBe(false), 30_000);
    const { sessionId } = await clientA.session.create.mutate();
    await clientA.session.send.mutate({ sessionId, prompt: "The first timeline prompt" });
    await finished(sessionId);
    const versionOf = (answer: Awaited<ReturnType<typeof clientB.timeline.view.query>>) => {
      if (!answer.changed) throw new Error("a timeline was expected");
      return (JSON.parse(answer.timelineJson) as { version: string }).version;
    };
    const first = await clientB.timeline.view.query({ sessionId });
    expect(first.changed && first.timelineJson).toContain("First timeline answer.");
    const version = versionOf(first);
    // Nothing written since: the same version, not sent again; node A, from the same rows, has the same version.
    expect(await clientB.timeline.view.query({ sessionId, knownVersion: version })).toEqual({ changed: false, version });
    expect(await clientA.timeline.view.query({ sessionId, knownVersion: version })).toEqual({ changed: false, version });

    await clientA.session.send.mutate({ sessionId, prompt: "The second timeline prompt" });
    await finished(sessionId);
    const second = await clientB.timeline.view.query({ sessionId, knownVersion: version });
    expect(second.changed && second.timelineJson).toContain("Second timeline answer.");
    expect(versionOf(second)).not.toBe(version);
    // The HTML export's source comes from the same rows.
    expect(JSON.stringify(await clientB.timeline.source.query({ sessionId }))).toContain("The second timeline prompt");
    expect(await errorOf(clientB.timeline.view.query({ sessionId: "00000000-0000-4000-8000-000000000000" }))).toMatchObject({ code: "NOT_FOUND" });
  }, 120_000);

  it("a subagent's sidechain is kept in PostgreSQL (no file on the node) and drawn as its own lane on the other node", async () => {
    const [nodeA, nodeB] = nodes;
    if (!nodeA || !nodeB) throw new Error("two nodes expected");
    const clientA = apiClient(nodeA.url, nodeA.token);
    const clientB = apiClient(nodeB.url, nodeB.token);
    const { sessionId } = await clientA.session.create.mutate();
    await clientA.session.send.mutate({ sessionId, prompt: "Ask a helper to count the files" });
    await eventually(async () => expect((await clientA.session.get.query({ sessionId })).running).toBe(false), 60_000);

    const answer = await clientB.timeline.view.query({ sessionId });
    if (!answer.changed) throw new Error("a timeline was expected");
    const compact = JSON.parse(answer.timelineJson) as { lanes: Array<{ id: string; label: string }> };
    expect(compact.lanes.map((lane) => lane.label)).toContain("Agent: Count the files");
    expect(answer.timelineJson).toContain("The helper's report: three files.");
    // Nothing of it on node A's disk: the sidechain is rows, which node B read.
    const subagentFiles = (await readdir(nodeA.runtime.cairnHome, { recursive: true })).filter((path) => path.includes("subagents"));
    expect(subagentFiles).toEqual([]);
  }, 120_000);

  it("a transcript imported on node A (the IDE's upload) or with cairn transcript import goes to PostgreSQL: listed and drawn on node B, no file", async () => {
    const [nodeA, nodeB] = nodes;
    if (!nodeA || !nodeB) throw new Error("two nodes expected");
    const clientB = apiClient(nodeB.url, nodeB.token);
    const jsonl = readFileSync(claudeCodeFixture, "utf8");
    const imported = await apiClient(nodeA.url, nodeA.token).timeline.importTranscript.mutate({ jsonl, name: "explore-edit.jsonl" });
    expect(imported.messageCount).toBeGreaterThan(5);
    const listedOnB = (await clientB.session.list.query()).find((entry) => entry.sessionId === imported.sessionId);
    expect(listedOnB).toMatchObject({ messageCount: expect.any(Number) });
    const source = await clientB.timeline.source.query({ sessionId: imported.sessionId });
    expect(source.imported).toBe(true);
    expect(JSON.stringify(source.lines)).toContain('"Edit"');
    expect(await nodeB.runtime.transcripts.load(imported.sessionId)).toMatchObject({ messages: expect.any(Array) });

    // The command line, given the database (CAIRN_DATABASE_URL), files it under the workspace as the nodes name it.
    const cli = await runCairn(["transcript", "import", claudeCodeFixture, "--cwd", services.workspace, "--session-id", "cli-imported"], {
      cwd: services.workspace,
      env: { CAIRN_DATABASE_URL: services.database.url, CAIRN_HOME: join(services.parent, "cli-home") },
    });
    expect(cli.stderr).toBe("");
    expect(cli.code).toBe(0);
    expect(cli.stdout).toContain("postgres:cairn_transcript_lines/cli-imported");
    expect((await clientB.session.list.query()).map((entry) => entry.sessionId)).toContain("cli-imported");
    // Again with the same id: refused, nothing overwritten.
    const again = await runCairn(["transcript", "import", claudeCodeFixture, "--cwd", services.workspace, "--session-id", "cli-imported"], {
      cwd: services.workspace,
      env: { CAIRN_DATABASE_URL: services.database.url, CAIRN_HOME: join(services.parent, "cli-home") },
    });
    expect(again.code).toBe(1);
    expect(again.stderr).toMatch(/already exists/);

    // Nothing of either on a node's or the command's disk.
    for (const home of [nodeA.runtime.cairnHome, join(services.parent, "cli-home")]) {
      const files = await readdir(home, { recursive: true }).catch(() => []);
      expect(files.filter((path) => path.includes(imported.sessionId) || path.includes("cli-imported"))).toEqual([]);
    }
  }, 120_000);

  it("a session nobody wrote to leaves every node's list when its owner lets go of it (here: the owner stops)", async () => {
    const [nodeA, nodeB] = nodes;
    if (!nodeA || !nodeB) throw new Error("two nodes expected");
    const clientB = apiClient(nodeB.url, nodeB.token);
    const { sessionId } = await apiClient(nodeA.url, nodeA.token).session.create.mutate();
    expect((await clientB.session.list.query()).map((entry) => entry.sessionId)).toContain(sessionId);
    nodes.shift();
    await nodeA.close();
    const listed = (await clientB.session.list.query()).map((entry) => entry.sessionId);
    expect(listed).not.toContain(sessionId);
    expect(listed.length).toBeGreaterThan(0);
  }, 60_000);
});
