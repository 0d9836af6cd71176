import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { Redis } from "ioredis";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Turn } from "@cairn/model-sim";
import type { ApiNodeProcess } from "../support/api-node-process.ts";
import { apiClient, eventually } from "./api-harness.ts";
import { type DistributedServices, type NodeProcesses, nodeProcesses, type StoreReader, startDistributedServices, storeReader } from "./distributed-harness.ts";

const LEASE_TTL_MS = 3_000;

/**
 * What a node taking a session over carries on, with API nodes as separate processes over one
 * private PostgreSQL and Redis: a permission question pending when the owner died is asked again
 * (same request id) and answering it finishes the turn; the mode and model come along; compaction,
 * fork, rewind, /clear and session rules sent to a node that does not own the session reach the
 * owner; a paused owner that wakes after the takeover cannot append to the session's event stream.
 */
describe("distributed mode: what a takeover carries over", () => {
  let services: DistributedServices;
  let nodes: NodeProcesses;
  let store: StoreReader;
  let inspect: Redis;
  let nodeB: ApiNodeProcess;

  const text = (match: string, answer: string): Turn => ({ match: { firstMessageIncludes: match }, content: [{ type: "text", text: answer }] });
  const carried = async (sessionId: string) =>
    (
      await store.sql<{ session_state: { permissionMode: string; model: string; waitingQuestions: Array<{ requestId: string }> } | null }[]>`
      select session_state from cairn_session_leases where session_id = ${sessionId}`
    )[0]?.session_state;

  beforeAll(async () => {
    services = await startDistributedServices({
      name: "takeover",
      scenario: (workspace) => ({
        turns: [
          {
            match: { firstMessageIncludes: "PENDING" },
            content: [{ type: "tool_use", name: "Write", input: { file_path: join(workspace, "asked-twice.txt"), content: "written after the takeover\n" } }],
            stop_reason: "tool_use",
          },
          text("PENDING", "Written on the node that took over."),
          text("CARRY", "First answer."),
          text("CARRY", "Answered by the new owner."),
          text("ROUTE-ALL", "An answer to route around."),
          text("ROUTE-ALL", "<summary>One question, one answer.</summary>"),
          // Many small chunks: once woken, the stale owner has far more to publish than the new owner published meanwhile.
          { match: { firstMessageIncludes: "FENCE-EVENTS" }, content: [{ type: "text", text: "STALE-OWNER-TEXT ".repeat(2_000) }], chunkDelayMs: 2 },
          text("FENCE-EVENTS", "New owner here."),
        ],
      }),
    });
    store = storeReader(services.database.url);
    inspect = new Redis(services.redis.url, { maxRetriesPerRequest: null });
    nodes = nodeProcesses(services, { leaseTtlMs: LEASE_TTL_MS });
    nodeB = await nodes.start("node-b");
  }, 120_000);

  afterAll(async () => {
    await nodes?.stopAll();
    inspect?.disconnect();
    await store?.end();
    await services?.stop();
  });

  it("a permission question pending when the owner is killed is asked again on the node that takes over, and answering it finishes the turn", async () => {
    const nodeA = await nodes.start("node-a1");
    const onA = apiClient(nodeA.url, nodeA.token);
    const onB = apiClient(nodeB.url, nodeB.token);
    const { sessionId } = await onA.session.create.mutate();
    await onA.session.send.mutate({ sessionId, prompt: "PENDING: write the file" });
    const tab = nodes.follow(nodeB, sessionId);
    const asked = await eventually(() => {
      const found = tab.events().find((event) => event.type === "permission-request");
      if (found?.type !== "permission-request") throw new Error("no permission request yet");
      return found;
    }, 30_000);
    // The owner keeps the waiting question with the lease (a person takes far longer to answer).
    await eventually(async () => expect((await carried(sessionId))?.waitingQuestions.map((question) => question.requestId)).toEqual([asked.requestId]), 10_000);

    await nodeA.kill();
    await eventually(async () => expect(await store.lease(sessionId)).toEqual({ owner: "node-b", generation: "2" }), 20_000);
    await eventually(() => expect(tab.events().some((event) => event.type === "notice" && event.code === "turn_resumed")).toBe(true), 10_000);
    // The same question, under the same id, is waiting on node B now.
    const snapshot = await eventually(async () => {
      const state = await onB.session.get.query({ sessionId });
      expect(state.pendingPermissions.map((pending) => [pending.requestId, pending.toolName])).toEqual([[asked.requestId, "Write"]]);
      return state;
    }, 10_000);
    expect(snapshot.running).toBe(true);
    const requestsBefore = services.sim.requests.length;
    expect(await onB.permission.respond.mutate({ sessionId, requestId: asked.requestId, answer: { behavior: "allow", scope: "once" } })).toEqual({
      accepted: true,
    });

    await eventually(
      () =>
        expect(
          tab
            .events()
            .filter((event) => event.type === "result")
            .at(-1),
        ).toMatchObject({ terminal: { reason: "completed" } }),
      30_000,
    );
    expect(await readFile(join(services.workspace, "asked-twice.txt"), "utf8")).toBe("written after the takeover\n");
    expect(tab.events().some((event) => event.type === "notice" && event.code === "turn_interrupted")).toBe(false);
    // The model got the call's real result and went on with the same turn.
    const next = services.sim.requests.slice(requestsBefore)[0];
    if (!next) throw new Error("the simulator got no request after the answer");
    const messages = (next.body as { messages: Array<{ role: string; content: string | Array<Record<string, unknown>> }> }).messages;
    const last = messages.at(-1)?.content;
    expect(Array.isArray(last) && last.some((block) => block.type === "tool_result" && block.is_error !== true)).toBe(true);
    expect((await store.lines(sessionId)).some((line) => line.includes("Written on the node that took over."))).toBe(true);
    expect((await onB.session.get.query({ sessionId })).pendingPermissions).toEqual([]);
  }, 120_000);

  it("the permission mode and model carry over to the node that takes the session over", async () => {
    const nodeA = await nodes.start("node-a2");
    const onA = apiClient(nodeA.url, nodeA.token);
    const onB = apiClient(nodeB.url, nodeB.token);
    const { sessionId } = await onA.session.create.mutate();
    await onA.session.setMode.mutate({ sessionId, mode: "acceptEdits" });
    await onA.session.setModel.mutate({ sessionId, model: "sim-model-2" });
    await onA.session.send.mutate({ sessionId, prompt: "CARRY: hello" });
    await eventually(async () => expect((await store.lines(sessionId)).some((line) => line.includes("First answer."))).toBe(true), 30_000);
    await eventually(async () => expect(await carried(sessionId)).toMatchObject({ permissionMode: "acceptEdits", model: "sim-model-2" }), 10_000);

    await nodeA.kill();
    const requestsBefore = services.sim.requests.length;
    // The next command on B waits out A's lease, takes the session over and runs there.
    await onB.session.send.mutate({ sessionId, prompt: "CARRY: again" });
    expect(await store.lease(sessionId)).toEqual({ owner: "node-b", generation: "2" });
    expect(await onB.session.get.query({ sessionId })).toMatchObject({ permissionMode: "acceptEdits", model: "sim-model-2" });
    await eventually(async () => expect((await store.lines(sessionId)).some((line) => line.includes("Answered by the new owner."))).toBe(true), 30_000);
    const request = services.sim.requests.slice(requestsBefore).find((candidate) => JSON.stringify(candidate.body).includes("CARRY: again"));
    if (!request) throw new Error("the simulator got no request with the prompt sent to B");
    expect((request.body as { model?: string }).model).toBe("sim-model-2");
  }, 120_000);

  it("compaction, fork, rewind, /clear and session rules sent to a node that does not own the session run on the owner", async () => {
    const nodeA = await nodes.start("node-a3");
    const onA = apiClient(nodeA.url, nodeA.token);
    const onB = apiClient(nodeB.url, nodeB.token);
    const { sessionId } = await onA.session.create.mutate();
    await onA.session.send.mutate({ sessionId, prompt: "ROUTE-ALL: a question" });
    await eventually(async () => expect((await onA.session.get.query({ sessionId })).messages.length).toBeGreaterThanOrEqual(2), 30_000);
    await eventually(async () => expect((await onA.session.get.query({ sessionId })).running).toBe(false), 30_000);
    const [prompt, answer] = (await onA.session.get.query({ sessionId })).messages;
    if (!prompt || !answer) throw new Error("the session should hold a prompt and an answer");

    const forked = await onB.session.fork.mutate({ sessionId, messageUuid: answer.uuid });
    expect((await store.lines(forked.sessionId)).some((line) => line.includes("An answer to route around."))).toBe(true);
    const rewound = await onB.session.rewind.mutate({ sessionId, messageUuid: answer.uuid, mode: "conversation" });
    expect(rewound.sessionId).not.toBeNull();
    expect(rewound.sessionId).not.toBe(sessionId);

    await onB.settings.addRule.mutate({ scope: "session", sessionId, behavior: "allow", rule: "Bash(ls:*)" });
    const rules = (await onB.settings.get.query({ sessionId })).rules.filter((rule) => rule.source === "session").map((rule) => rule.rule);
    expect(rules).toEqual(["Bash(ls:*)"]);
    expect(await onB.settings.removeRule.mutate({ scope: "session", sessionId, behavior: "allow", rule: "Bash(ls:*)" })).toEqual({ removed: true });

    const compacted = await onB.session.compact.mutate({ sessionId, instructions: "keep it short" });
    expect(compacted.summarizedCount).toBeGreaterThan(0);
    expect((await store.lines(sessionId)).some((line) => line.includes("compact_boundary"))).toBe(true);

    const cleared = await onB.session.send.mutate({ sessionId, prompt: "/clear" });
    const clearedTo = cleared.command?.sessionId;
    expect(clearedTo).toBeDefined();
    // Every command ran on A: it kept the session throughout, and the session /clear started is A's too.
    expect(await store.lease(sessionId)).toEqual({ owner: "node-a3", generation: "1" });
    expect(await store.lease(clearedTo as string)).toMatchObject({ owner: "node-a3" });
    expect(nodeB.stderr()).not.toContain(`refused a write to session ${sessionId}`);
  }, 120_000);

  it("a paused owner that wakes after the takeover cannot append to the session's event stream", async () => {
    const nodeC = await nodes.start("node-c");
    const onC = apiClient(nodeC.url, nodeC.token);
    const onB = apiClient(nodeB.url, nodeB.token);
    const { sessionId } = await onC.session.create.mutate();
    await onC.session.send.mutate({ sessionId, prompt: "FENCE-EVENTS: stream slowly" });
    const tab = nodes.follow(nodeB, sessionId);
    await eventually(() => expect(tab.events().filter((event) => event.type === "text-delta").length).toBeGreaterThan(3), 30_000);

    nodeC.child.kill("SIGSTOP");
    // The tab on B makes B take the session over once C's lease lapses; B publishes only a few events (the turn's end).
    await eventually(async () => expect(await store.lease(sessionId)).toEqual({ owner: "node-b", generation: "2" }), 20_000);
    await eventually(() => expect(tab.events().some((event) => event.type === "notice" && event.code === "turn_interrupted")).toBe(true), 10_000);
    const stream = `cairn:events:${sessionId}`;
    const takenOverAt = (await inspect.xrevrange(stream, "+", "-", "COUNT", 1))[0]?.[0];

    // C goes on streaming what the simulator sent while it was stopped, under its old generation: refused.
    nodeC.child.kill("SIGCONT");
    await eventually(() => expect(nodeC.stderr()).toContain(`refused to publish to session ${sessionId}`), 30_000);
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    const after = await inspect.xrange(stream, `(${takenOverAt}`, "+");
    expect(after.map(([, fields]) => fields.join(" ")).filter((entry) => entry.includes("STALE-OWNER-TEXT"))).toEqual([]);
    // The stream's ids stay one numbering, without a hole, and the tab on B saw nothing of C after the takeover.
    const ids = (await inspect.xrange(stream, "-", "+")).map(([id]) => Number(id.split("-")[0]));
    expect(ids).toEqual(ids.map((_, index) => index + 1));
    const handedOver = tab.events().findIndex((event) => event.type === "notice" && event.code === "turn_interrupted");
    expect(
      tab
        .events()
        .slice(handedOver)
        .filter((event) => event.type === "text-delta" && event.text.includes("STALE-OWNER-TEXT")),
    ).toEqual([]);
    // B carries on with the session.
    await onB.session.send.mutate({ sessionId, prompt: "Take it over" });
    await eventually(
      () =>
        expect(
          tab
            .events()
            .filter((event) => event.type === "result")
            .at(-1),
        ).toMatchObject({ terminal: { reason: "completed" } }),
      30_000,
    );
    expect((await store.lines(sessionId)).some((line) => line.includes("New owner here."))).toBe(true);
  }, 120_000);
});
