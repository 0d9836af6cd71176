import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { TRPCClientError } from "@trpc/client";
import { describe, expect, it } from "vitest";
import { startServer, type SessionStateEvent } from "@cairn/api";
import { apiClient, EventsSubscriber, startApiFixture, type ApiFixture, eventually } from "./api-harness.ts";
import { localWorkerScript } from "../support/cli.ts";

const text = (value: string) => ({ content: [{ type: "text" as const, text: value }] });

async function idle(fixture: ApiFixture, sessionId: string): Promise<void> {
  await eventually(async () => expect((await fixture.client.session.get.query({ sessionId })).running).toBe(false), 20_000);
}

describe("session procedures", () => {
  it("queues a prompt sent while one runs, runs both in order, and lists the session", async () => {
    await using fixture = await startApiFixture({ scenario: { turns: [{ ...text("first answer ".repeat(30)), chunkDelayMs: 3 }, text("second answer")] } });
    const { client } = fixture;
    const { sessionId } = await client.session.create.mutate();
    expect(await client.session.send.mutate({ sessionId, prompt: "first question" })).toEqual({ queued: false, position: 0 });
    expect(await client.session.send.mutate({ sessionId, prompt: "second question" })).toEqual({ queued: true, position: 1 });
    expect((await client.session.get.query({ sessionId })).queued).toBe(1);
    await idle(fixture, sessionId);

    const snapshot = await client.session.get.query({ sessionId });
    const prompts = snapshot.messages.filter((message) => message.type === "user").map((message) => message.message.content);
    expect(prompts).toEqual(["first question", "second question"]);
    expect(snapshot.messages.map((message) => message.type)).toEqual(["user", "assistant", "user", "assistant"]);
    expect(snapshot).toMatchObject({ title: "first question", running: false, queued: 0, model: "sim-model", permissionMode: "default" });
    expect(snapshot.contextTokens).toBeGreaterThan(0);
    expect(snapshot.contextWindow).toBeGreaterThan(0);

    const listed = await client.session.list.query();
    expect(listed).toEqual([expect.objectContaining({ sessionId, title: "first question", running: false, messageCount: 4 })]);
  });

  it("interrupts the running prompt and drops the queued ones", async () => {
    await using fixture = await startApiFixture({ scenario: { turns: [{ ...text("slow ".repeat(400)), chunkDelayMs: 5 }, text("never")] } });
    const { client } = fixture;
    const { sessionId } = await client.session.create.mutate();
    const tab = new EventsSubscriber(fixture.server.url, fixture.server.token, sessionId);
    try {
      await client.session.send.mutate({ sessionId, prompt: "one" });
      await client.session.send.mutate({ sessionId, prompt: "two" });
      await eventually(() => expect(tab.events().some((event) => event.type === "text-delta")).toBe(true));
      expect(await client.session.interrupt.mutate({ sessionId })).toEqual({ interrupted: true });
      await idle(fixture, sessionId);
      const snapshot = await client.session.get.query({ sessionId });
      expect(snapshot.messages.filter((message) => message.type === "user").map((message) => message.message.content)).toEqual(["one"]);
      await eventually(() => expect(tab.events().some((event) => event.type === "result" && event.terminal.reason === "aborted_streaming")).toBe(true));
      expect(fixture.sim.requests.filter((request) => request.path.startsWith("/v1/messages") && !request.path.includes("count_tokens"))).toHaveLength(1);
    } finally {
      await tab.stop();
    }
  });

  it("changes mode and model per session, announced as session-state events", async () => {
    await using fixture = await startApiFixture();
    const { client } = fixture;
    const { sessionId } = await client.session.create.mutate({ permissionMode: "plan" });
    const other = await client.session.create.mutate();
    const tab = new EventsSubscriber(fixture.server.url, fixture.server.token, sessionId);
    try {
      await eventually(() => expect(fixture.server.hub.bus.listenerCount(sessionId)).toBe(1));
      await client.session.setMode.mutate({ sessionId, mode: "acceptEdits" });
      await client.session.setModel.mutate({ sessionId, model: "another-model" });
      await eventually(() => {
        const states = tab.events().filter((event): event is SessionStateEvent => event.type === "session-state");
        expect(states.at(-1)).toMatchObject({ permissionMode: "acceptEdits", model: "another-model", running: false });
      });
      expect(await client.session.get.query({ sessionId })).toMatchObject({ permissionMode: "acceptEdits", model: "another-model" });
      expect(await client.session.get.query({ sessionId: other.sessionId })).toMatchObject({ permissionMode: "default", model: "sim-model" });
      const missing = await client.session.get.query({ sessionId: "no-such-session" }).catch((error: unknown) => error);
      expect(missing).toBeInstanceOf(TRPCClientError);
      expect((missing as TRPCClientError<never>).data).toMatchObject({ code: "NOT_FOUND", cairn: { code: "session_not_found" } });
    } finally {
      await tab.stop();
    }
  });

  it("compacts on request with the session's compactor", async () => {
    await using fixture = await startApiFixture({ scenario: { turns: [text("an answer"), text("<summary>We talked about one thing.</summary>")] } });
    const { client } = fixture;
    const { sessionId } = await client.session.create.mutate();
    await client.session.send.mutate({ sessionId, prompt: "a question" });
    await idle(fixture, sessionId);
    const compacted = await client.session.compact.mutate({ sessionId, instructions: "keep it short" });
    expect(compacted.summarizedCount).toBeGreaterThan(0);
    const summaryRequest = fixture.sim.requests.at(-1)!;
    expect(JSON.stringify(summaryRequest.body)).toContain("keep it short");
    const snapshot = await client.session.get.query({ sessionId });
    expect(snapshot.messages.some((message) => message.type === "system" && message.subtype === "compact_boundary")).toBe(true);
    expect(snapshot.running).toBe(false);
  });

  it("forks at a message, and keeps sessions on disk across a server restart", async () => {
    await using fixture = await startApiFixture({ scenario: { turns: [text("answer one"), text("answer two")] } });
    const { client } = fixture;
    const { sessionId } = await client.session.create.mutate();
    await client.session.send.mutate({ sessionId, prompt: "question one" });
    await idle(fixture, sessionId);
    await client.session.send.mutate({ sessionId, prompt: "question two" });
    await idle(fixture, sessionId);
    const messages = (await client.session.get.query({ sessionId })).messages;
    const firstAnswer = messages[1]!;
    const forked = await client.session.fork.mutate({ sessionId, messageUuid: firstAnswer.uuid });
    expect(forked.sessionId).not.toBe(sessionId);
    expect((await client.session.get.query({ sessionId: forked.sessionId })).messages.map((message) => message.uuid)).toEqual(
      messages.slice(0, 2).map((message) => message.uuid),
    );

    // A second server over the same home and workspace finds both sessions on disk.
    const again = await startServer({
      workerScript: localWorkerScript,
      workspace: fixture.root,
      cairnHome: fixture.cairnHome,
      version: "test",
      apiKey: "test",
      baseURL: fixture.sim.url,
      port: 0,
      webDir: null,
      checkpoints: false,
      managedSettingsPath: join(fixture.parent, "none.json"),
    });
    try {
      const second = apiClient(again.url, again.token);
      const listed = await second.session.list.query();
      expect(listed.map((entry) => entry.sessionId).sort()).toEqual([sessionId, forked.sessionId].sort());
      expect((await second.session.get.query({ sessionId })).messages.map((message) => message.uuid)).toEqual(messages.map((message) => message.uuid));
    } finally {
      await again.close();
    }
  });

  it("rewinds files and conversation to just before a prompt", async () => {
    await using fixture = await startApiFixture({ checkpoints: true, scenario: { turns: [] } });
    const target = join(fixture.root, "made-by-agent.txt");
    fixture.sim.setScenario({
      turns: [text("nothing to do"), { content: [{ type: "tool_use", name: "Write", input: { file_path: target, content: "v1\n" } }] }, text("wrote it")],
    });
    const { client } = fixture;
    const { sessionId } = await client.session.create.mutate({ permissionMode: "acceptEdits" });
    await client.session.send.mutate({ sessionId, prompt: "say hi" });
    await idle(fixture, sessionId);
    await client.session.send.mutate({ sessionId, prompt: "write the file" });
    await idle(fixture, sessionId);
    expect(await readFile(target, "utf8")).toBe("v1\n");

    const messages = (await client.session.get.query({ sessionId })).messages;
    // Nothing changed the files after the last answer: nothing to restore.
    const atEnd = await client.session.rewind.mutate({ sessionId, messageUuid: messages.at(-1)!.uuid, mode: "files" });
    expect(atEnd).toEqual({ sessionId: null, restoredCheckpoint: null, backupCheckpoint: null, prompt: null });
    expect(await readFile(target, "utf8")).toBe("v1\n");

    const secondPrompt = messages.find((message) => message.type === "user" && message.message.content === "write the file")!;
    const rewound = await client.session.rewind.mutate({ sessionId, messageUuid: secondPrompt.uuid, mode: "both" });
    expect(rewound.prompt).toBe("write the file");
    expect(rewound.restoredCheckpoint).toMatch(/^[0-9a-f]{40}$/);
    await expect(readFile(target, "utf8")).rejects.toThrow();
    expect(rewound.sessionId).not.toBeNull();
    const forked = await client.session.get.query({ sessionId: rewound.sessionId! });
    expect(forked.messages.map((message) => message.uuid)).toEqual(messages.slice(0, 2).map((message) => message.uuid));
  });

  it("lets go of idle sessions and loads them again; a tab that comes back gets the conversation", async () => {
    await using fixture = await startApiFixture({ scenario: { turns: [text("kept on disk")] }, idleTimeoutMs: 100 });
    const { client, server } = fixture;
    const { sessionId } = await client.session.create.mutate();
    await client.session.send.mutate({ sessionId, prompt: "remember this" });
    await idle(fixture, sessionId);
    const before = await client.session.get.query({ sessionId });
    await eventually(() => expect(server.hub.liveSession(sessionId)).toBeUndefined(), 10_000);

    const tab = new EventsSubscriber(server.url, server.token, sessionId, { lastEventId: String(before.lastSeq) });
    try {
      await eventually(() => expect(tab.events().filter((event) => event.type === "message")).toHaveLength(2));
      expect(server.hub.liveSession(sessionId)).toBeDefined();
      expect(tab.events().flatMap((event) => (event.type === "message" ? [event.message.uuid] : []))).toEqual(before.messages.map((message) => message.uuid));
    } finally {
      await tab.stop();
    }
    expect((await client.session.get.query({ sessionId })).messages.map((message) => message.uuid)).toEqual(before.messages.map((message) => message.uuid));
  });
});
