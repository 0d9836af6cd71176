import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Turn } from "@cairn/model-sim";
import { apiClient, eventually } from "./api-harness.ts";
import { type DistributedServices, type NodeProcesses, nodeProcesses, type StoreReader, startDistributedServices, storeReader } from "./distributed-harness.ts";

/**
 * Session leases across API nodes running as separate processes over one PostgreSQL and one Redis:
 * commands sent to any node reach the owner; a paused owner that wakes after a takeover has its writes
 * refused; a node killed with SIGKILL mid-run is taken over by the node a tab follows the session on.
 */
describe("distributed mode: session leases, routing and failover", () => {
  let services: DistributedServices;
  let nodes: NodeProcesses;
  let store: StoreReader;

  const slow = (text: string, chunks: number, chunkDelayMs: number, match: string): Turn => ({
    match: { firstMessageIncludes: match },
    content: [{ type: "text", text: text.repeat(chunks) }],
    chunkDelayMs,
  });

  beforeAll(async () => {
    services = await startDistributedServices({
      name: "failover",
      scenario: (workspace) => ({
        turns: [
          {
            match: { firstMessageIncludes: "ROUTING" },
            content: [{ type: "tool_use", name: "Write", input: { file_path: join(workspace, "routed.txt"), content: "written by the owner\n" } }],
            stop_reason: "tool_use",
          },
          { match: { firstMessageIncludes: "ROUTING" }, content: [{ type: "text", text: "Wrote it." }] },
          slow("interrupt me ", 400, 20, "ROUTING"),
          slow("STALE-OWNER-TEXT ", 60, 40, "FENCING"),
          { match: { firstMessageIncludes: "FENCING" }, content: [{ type: "text", text: "The new owner answers." }] },
          {
            match: { firstMessageIncludes: "FAILOVER" },
            content: [{ type: "tool_use", name: "Read", input: { file_path: join(workspace, "README.md") } }],
            stop_reason: "tool_use",
          },
          slow("a long answer ", 600, 25, "FAILOVER"),
          { match: { firstMessageIncludes: "FAILOVER" }, content: [{ type: "text", text: "Resumed on node B." }] },
          slow("short and done ", 30, 30, "DRAIN-SHORT"),
          slow("never finished ", 1_000, 25, "DRAIN-LONG"),
          { match: { firstMessageIncludes: "DRAIN-LONG" }, content: [{ type: "text", text: "Continued on node B." }] },
        ],
      }),
    });
    store = storeReader(services.database.url);
    nodes = nodeProcesses(services);
  }, 120_000);

  afterAll(async () => {
    await nodes?.stopAll();
    await store?.end();
    await services?.stop();
  });

  it("routes send, permission answers, mode and model switches and interrupt from node B to the owner, node A", async () => {
    const [nodeA, nodeB] = await Promise.all([nodes.start("node-a"), nodes.start("node-b")]);
    const onA = apiClient(nodeA.url, nodeA.token);
    const onB = apiClient(nodeB.url, nodeB.token);
    const { sessionId } = await onA.session.create.mutate();
    expect(await store.lease(sessionId)).toEqual({ owner: "node-a", generation: "1" });

    // Nothing of the session is stored yet, so only its owner knows it: B's commands must reach A.
    expect((await onB.session.get.query({ sessionId })).sessionId).toBe(sessionId);
    await onB.session.send.mutate({ sessionId, prompt: "ROUTING: write the file" });
    await eventually(async () => expect((await store.lines(sessionId)).length).toBeGreaterThan(0), 30_000);
    const tab = nodes.follow(nodeB, sessionId);
    const request = await eventually(() => {
      const found = tab.events().find((event) => event.type === "permission-request");
      expect(found).toBeDefined();
      return found;
    }, 30_000);
    if (request?.type !== "permission-request") throw new Error("no permission request");
    // The snapshot comes from the owner, so B shows the pending prompt too.
    expect((await onB.session.get.query({ sessionId })).pendingPermissions.map((pending) => pending.requestId)).toEqual([request.requestId]);
    expect(await onB.permission.respond.mutate({ sessionId, requestId: request.requestId, answer: { behavior: "allow", scope: "once" } })).toEqual({
      accepted: true,
    });
    await eventually(() => expect(tab.events().filter((event) => event.type === "result")).toHaveLength(1), 30_000);
    expect(await readFile(join(services.workspace, "routed.txt"), "utf8")).toBe("written by the owner\n");

    await onB.session.setMode.mutate({ sessionId, mode: "acceptEdits" });
    await onB.session.setModel.mutate({ sessionId, model: "sim-model-2" });
    expect(await onA.session.get.query({ sessionId })).toMatchObject({ permissionMode: "acceptEdits", model: "sim-model-2" });

    await onB.session.send.mutate({ sessionId, prompt: "Now something long" });
    await eventually(() => expect(tab.events().filter((event) => event.type === "text-delta").length).toBeGreaterThan(3), 30_000);
    expect(await onB.session.interrupt.mutate({ sessionId })).toEqual({ interrupted: true });
    await eventually(() => expect(tab.events().filter((event) => event.type === "result")).toHaveLength(2), 30_000);
    const ended = tab.events().filter((event) => event.type === "result");
    expect(ended.at(-1)).toMatchObject({ terminal: { reason: "aborted_streaming" } });
    // Node A kept the session throughout: nothing was taken over.
    expect(await store.lease(sessionId)).toEqual({ owner: "node-a", generation: "1" });
    expect(tab.errors).toEqual([]);
  }, 120_000);

  it("refuses the writes of a paused owner that wakes up after node B has taken its session over", async () => {
    const nodeB = await nodes.reuse("node-b");
    const nodeC = await nodes.start("node-c");
    const onC = apiClient(nodeC.url, nodeC.token);
    const onB = apiClient(nodeB.url, nodeB.token);
    const { sessionId } = await onC.session.create.mutate();
    await onC.session.send.mutate({ sessionId, prompt: "FENCING: stream slowly" });
    await eventually(async () => expect((await store.lines(sessionId)).length).toBeGreaterThan(0), 30_000);
    const tab = nodes.follow(nodeB, sessionId);
    await eventually(() => expect(tab.events().filter((event) => event.type === "text-delta").length).toBeGreaterThan(2), 30_000);

    nodeC.child.kill("SIGSTOP");
    // C does not answer: B waits its lease out, takes the session over, and runs the prompt itself.
    await onB.session.send.mutate({ sessionId, prompt: "Take it over" });
    expect(await store.lease(sessionId)).toEqual({ owner: "node-b", generation: "2" });
    await eventually(() => expect(tab.events().some((event) => event.type === "result")).toBe(true), 30_000);
    const before = await store.lines(sessionId);
    expect(before.some((line) => line.includes("The new owner answers."))).toBe(true);

    nodeC.child.kill("SIGCONT");
    // C's stream goes on, and its run tries to record the answer under its old lease: refused.
    await eventually(() => expect(nodeC.stderr()).toContain(`refused a write to session ${sessionId}: lease generation 1 is no longer current`), 30_000);
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    const after = await store.lines(sessionId);
    expect(after).toEqual(before);
    expect(after.some((line) => line.includes("STALE-OWNER-TEXT STALE-OWNER-TEXT"))).toBe(false);
    expect(await store.lease(sessionId)).toEqual({ owner: "node-b", generation: "2" });
  }, 120_000);

  it("kill -9 of the owner mid-run: the node a tab follows on takes over within the lease TTL and the next prompt carries the history", async () => {
    const nodeA = await nodes.start("node-a2");
    const nodeB = await nodes.reuse("node-b");
    const onA = apiClient(nodeA.url, nodeA.token);
    const onB = apiClient(nodeB.url, nodeB.token);
    const { sessionId } = await onA.session.create.mutate();
    await onA.session.send.mutate({ sessionId, prompt: "FAILOVER: read the README, then answer at length" });
    await eventually(async () => expect((await store.lines(sessionId)).length).toBeGreaterThan(0), 30_000);
    const tab = nodes.follow(nodeB, sessionId);
    await eventually(() => expect(tab.events().filter((event) => event.type === "text-delta").length).toBeGreaterThan(5), 30_000);

    const written = await store.lines(sessionId);
    const seenMessages = tab.events().flatMap((event) => (event.type === "message" ? [event.message.uuid] : []));
    const killedAt = Date.now();
    await nodeA.kill();
    const takeover = await eventually(async () => {
      expect(await store.lease(sessionId)).toEqual({ owner: "node-b", generation: "2" });
      return Date.now() - killedAt;
    }, 20_000);
    expect(takeover).toBeLessThanOrEqual(10_000);

    // Every line written before the kill is there, unchanged, and every message a tab was shown.
    const after = await store.lines(sessionId);
    expect(after.slice(0, written.length)).toEqual(written);
    const stored = after.map((line) => (JSON.parse(line) as { uuid?: string }).uuid);
    expect(seenMessages.length).toBeGreaterThanOrEqual(3);
    for (const uuid of seenMessages) expect(stored).toContain(uuid);
    // The tab is told the turn was cut off, and that the session is idle.
    await eventually(() => expect(tab.events().some((event) => event.type === "notice" && event.code === "turn_interrupted")).toBe(true), 10_000);
    await eventually(
      () =>
        expect(
          tab
            .events()
            .filter((event) => event.type === "session-state")
            .at(-1),
        ).toMatchObject({ running: false }),
      10_000,
    );

    const requestsBefore = services.sim.requests.length;
    await onB.session.send.mutate({ sessionId, prompt: "FAILOVER continue" });
    await eventually(() => expect(tab.events().filter((event) => event.type === "result")).toHaveLength(1), 30_000);
    const next = services.sim.requests.slice(requestsBefore).find((request) => JSON.stringify(request.body).includes("FAILOVER continue"));
    if (!next) throw new Error("the simulator got no request with the next prompt");
    const messages = (next.body as { messages: Array<{ role: string; content: string | Array<Record<string, unknown>> }> }).messages;
    // Roles alternate from the first prompt to this one (the interrupted turn's note and the new prompt share the last).
    expect(messages.map((message) => message.role)).toEqual(messages.map((_, index) => (index % 2 === 0 ? "user" : "assistant")));
    expect(messages.at(-1)?.role).toBe("user");
    const text = JSON.stringify(messages);
    expect(text).toContain("FAILOVER: read the README");
    expect(text).toContain("# shared workspace");
    expect(text).toContain("FAILOVER continue");
    expect(text).toContain("was interrupted");
    // Well formed: each tool_use is answered in the next message.
    messages.forEach((message, index) => {
      if (typeof message.content === "string") return;
      for (const block of message.content) {
        if (block.type !== "tool_use") continue;
        const answer = messages[index + 1]?.content;
        expect(Array.isArray(answer) && answer.some((candidate) => candidate.type === "tool_result" && candidate.tool_use_id === block.id)).toBe(true);
      }
    });
  }, 120_000);

  it("SIGTERM drains a node: a short run finishes, a long one is interrupted, both are handed over cleanly", async () => {
    const nodeB = await nodes.reuse("node-b");
    const nodeD = await nodes.start("node-d", { drainTimeoutMs: 4_000 });
    const onD = apiClient(nodeD.url, nodeD.token);
    const onB = apiClient(nodeB.url, nodeB.token);
    const short = (await onD.session.create.mutate()).sessionId;
    const long = (await onD.session.create.mutate()).sessionId;
    await onD.session.send.mutate({ sessionId: long, prompt: "DRAIN-LONG: go on for a while" });
    await onD.session.send.mutate({ sessionId: short, prompt: "DRAIN-SHORT: a quick answer" });
    await eventually(async () => expect((await onD.session.get.query({ sessionId: short })).streamingFromSeq).not.toBeNull(), 30_000);

    nodeD.child.kill("SIGTERM");
    expect(await nodeD.exited).toBe("0");
    // Both leases were released (owner cleared), not left to lapse.
    expect(await store.lease(short)).toEqual({ owner: null, generation: "1" });
    expect(await store.lease(long)).toEqual({ owner: null, generation: "1" });
    expect((await store.lines(short)).some((line) => line.includes("short and done ".repeat(30).trim()))).toBe(true);
    expect((await store.lines(long)).some((line) => line.includes("never finished ".repeat(1_000).trim()))).toBe(false);

    // The next command on B takes the released session over at once, with nothing to recover.
    const tab = nodes.follow(nodeB, long);
    await onB.session.send.mutate({ sessionId: long, prompt: "Carry on" });
    expect(await store.lease(long)).toEqual({ owner: "node-b", generation: "2" });
    // The stream holds D's interrupted run's result first, then B's.
    await eventually(() => expect(tab.events().filter((event) => event.type === "result")).toHaveLength(2), 30_000);
    expect(tab.events().filter((event) => event.type === "result")).toMatchObject([
      { terminal: { reason: "aborted_streaming" } },
      { terminal: { reason: "completed" } },
    ]);
    expect(tab.events().some((event) => event.type === "notice" && event.code === "turn_interrupted")).toBe(false);
    expect((await store.lines(long)).some((line) => line.includes("Continued on node B."))).toBe(true);
  }, 120_000);
});
