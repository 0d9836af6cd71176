import { mkdir, readdir } from "node:fs/promises";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startServer, type CairnServer } from "@cairn/api";
import { apiClient, eventually } from "./api-harness.ts";
import { type DistributedServices, startDistributedServices, startInProcessNode } from "./distributed-harness.ts";

const text = (value: string) => ({ content: [{ type: "text" as const, text: value }] });

/** Two API nodes (separate homes, one workspace, one PostgreSQL): what one writes, the other lists, loads and continues. */
describe("distributed mode: transcripts and the session index in PostgreSQL", () => {
  let services: DistributedServices<undefined>;
  const nodes: CairnServer[] = [];

  const startNode = async (nodeId: string): Promise<CairnServer> => {
    const server = await startInProcessNode(services, nodeId);
    nodes.push(server);
    return server;
  };

  beforeAll(async () => {
    services = await startDistributedServices({
      name: "pg",
      redis: false,
      scenario: { turns: [text("The README has one heading."), text("Second answer, from node B.")] },
    });
  }, 120_000);

  afterAll(async () => {
    for (const node of nodes) await node.close();
    await services?.stop();
  });

  it("runs a prompt on node A, lists and continues it on node B with the earlier history, and writes no JSONL files", async () => {
    const nodeA = await startNode("node-a");
    const nodeB = await startNode("node-b");
    expect(nodeA.distributed?.describe().join("\n")).toMatch(/PostgreSQL: postgres:\/\/cairn@127\.0\.0\.1:\d+\/postgres \(migrated to schema \d+\)/);
    expect(nodeB.distributed?.describe().join("\n")).toContain("schema up to date");
    const clientA = apiClient(nodeA.url, nodeA.token);
    const clientB = apiClient(nodeB.url, nodeB.token);

    const { sessionId } = await clientA.session.create.mutate();
    await clientA.session.send.mutate({ sessionId, prompt: "What is in the README?" });
    await eventually(async () => expect((await clientA.session.get.query({ sessionId })).running).toBe(false), 30_000);

    const listed = await clientB.session.list.query();
    expect(listed).toEqual([expect.objectContaining({ sessionId, title: "What is in the README?", running: false, messageCount: 2 })]);
    const onB = await clientB.session.get.query({ sessionId });
    expect(onB.messages.map((message) => message.type)).toEqual(["user", "assistant"]);

    await clientB.session.send.mutate({ sessionId, prompt: "And on node B?" });
    await eventually(async () => expect((await clientB.session.get.query({ sessionId })).running).toBe(false), 30_000);
    const requests = services.sim.requests.filter((request) => request.path === "/v1/messages");
    const last = requests.at(-1)?.body as { messages: Array<{ role: string; content: unknown }> };
    expect(last.messages.map((message) => message.role)).toEqual(["user", "assistant", "user"]);
    expect(JSON.stringify(last.messages[0])).toContain("What is in the README?");
    expect(JSON.stringify(last.messages[1])).toContain("The README has one heading.");

    // Node A sees what B wrote once it loads the session again (after it let go of it).
    const fromA = await nodeA.runtime.transcripts.load(sessionId);
    expect(fromA?.messages.map((message) => message.type)).toEqual(["user", "assistant", "user", "assistant"]);
    // Nothing went to either node's JSONL folder.
    for (const node of [nodeA, nodeB]) {
      const projects = await readdir(join(node.runtime.cairnHome, "projects")).catch(() => []);
      expect(projects).toEqual([]);
    }
  }, 120_000);

  it("refuses to start when PostgreSQL cannot be reached, naming it without its password", async () => {
    const home = join(services.parent, "home-unreachable");
    await mkdir(home);
    const attempt = startServer({
      workspace: services.workspace,
      cairnHome: home,
      version: "0.0.0-test",
      apiKey: "test",
      baseURL: services.sim.url,
      port: 0,
      webDir: null,
      checkpoints: false,
      managedSettingsPath: join(services.parent, "no-managed-settings.json"),
      distributed: { databaseUrl: "postgres://cairn:secret@127.0.0.1:1/none", redisUrl: undefined, workerUrls: [], nodeId: "node-x" },
    });
    await expect(attempt).rejects.toThrow(/PostgreSQL at postgres:\/\/cairn:\*\*\*@127\.0\.0\.1:1\/none/);
    await expect(attempt).rejects.not.toThrow(/secret/);
  }, 60_000);
});
