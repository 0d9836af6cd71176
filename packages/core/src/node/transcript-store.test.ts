import { appendFile, mkdir, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { assistantReply, toolResults, U, userPrompt } from "../session/__fixtures__/builders.ts";
import type { FsyncPolicy } from "./transcript-store.ts";
import { TranscriptStoreError, createJsonlTranscriptStore, sessionTranscriptPath } from "./transcript-store.ts";
import { loadTranscript } from "./transcript-reader.ts";

let cairnHome: string;
const cwd = "/work/my project";
const sessionId = "6f1c2d3e-0000-4000-8000-000000000001";
const open = (fsync: FsyncPolicy = "never") =>
  createJsonlTranscriptStore({ cairnHome, cwd, sessionId, version: "0.1.0", fsync, now: () => new Date(Date.UTC(2026, 10, 29)) });
const lines = async (path: string) =>
  (await readFile(path, "utf8"))
    .split("\n")
    .filter((text) => text !== "")
    .map((text) => JSON.parse(text) as Record<string, unknown>);

beforeEach(async () => {
  cairnHome = await mkdtemp(join(tmpdir(), "cairn-store-"));
});
afterEach(async () => {
  await rm(cairnHome, { recursive: true, force: true });
});

describe("the JSONL transcript store", () => {
  it("writes a meta line first, then each message in Claude Code's envelope, at the documented path", async () => {
    const store = open();
    await store.appendMessage(userPrompt(1, null, "hello"));
    await store.appendMessage(assistantReply(2, 1, "hi"));
    await store.close();

    expect(store.path).toBe(join(cairnHome, "projects", "-work-my-project", `${sessionId}.jsonl`));
    expect(store.path).toBe(sessionTranscriptPath({ cairnHome, cwd, sessionId }));
    const written = await lines(store.path);
    expect(written[0]).toEqual({
      type: "cairn-session",
      sessionId,
      timestamp: "2026-11-29T00:00:00.000Z",
      cwd,
      cairnSchema: 1,
      version: "0.1.0",
    });
    const envelope = { sessionId, cwd, version: "0.1.0", userType: "external", cairnSchema: 1 };
    expect(written[1]).toMatchObject({ ...envelope, type: "user", uuid: U(1), parentUuid: null, message: { content: "hello" } });
    expect(written[2]).toMatchObject({ ...envelope, type: "assistant", uuid: U(2), parentUuid: U(1) });
  });

  it("keeps the order of appends that were not awaited one by one", async () => {
    const store = open();
    const appends = Array.from({ length: 200 }, (_, index) => store.appendMessage(userPrompt(index + 1, index === 0 ? null : index, `m${index}`)));
    await Promise.all(appends);
    await store.close();
    const written = await lines(store.path);
    expect(written.slice(1).map((line) => line.uuid)).toEqual(Array.from({ length: 200 }, (_, index) => U(index + 1)));
  });

  it("appends to an existing session without a second meta line", async () => {
    const first = open();
    await first.appendMessage(userPrompt(1, null, "one"));
    await first.close();
    const second = open();
    await second.appendMessage(assistantReply(2, 1, "two"));
    await second.close();
    const written = await lines(first.path);
    expect(written.map((line) => line.type)).toEqual(["cairn-session", "user", "assistant"]);
  });

  it("cuts off a torn tail left by a crash before appending, so the new line stays whole", async () => {
    const first = open();
    await first.appendMessage(userPrompt(1, null, "one"));
    await first.close();
    await appendFile(first.path, '{"type":"assistant","uuid":"half-writ');
    const second = open();
    await second.appendMessage(userPrompt(2, 1, "two"));
    await second.close();
    const loaded = await loadTranscript(first.path);
    expect(loaded.messages.map((message) => message.uuid)).toEqual([U(1), U(2)]);
    expect(loaded.report).toMatchObject({ malformedLines: 0, tornTail: false });
  });

  it("starts a file whose only line was torn (a crash while writing the first line) with its meta line", async () => {
    const store = open();
    await mkdir(dirname(store.path), { recursive: true });
    await writeFile(store.path, '{"type":"cairn-session","sessionId":"6f1c2d3e-00');
    await store.appendMessage(userPrompt(1, null, "one"));
    await store.close();
    const written = await lines(store.path);
    expect(written.map((line) => line.type)).toEqual(["cairn-session", "user"]);
    expect((await loadTranscript(store.path)).report).toMatchObject({ malformedLines: 0, tornTail: false });
  });

  it("keeps a last line that was whole but lacked its newline", async () => {
    const first = open();
    await first.appendMessage(userPrompt(1, null, "one"));
    await first.close();
    await appendFile(first.path, JSON.stringify({ ...userPrompt(2, 1, "two"), sessionId }));
    const second = open();
    await second.appendMessage(userPrompt(3, 2, "three"));
    await second.close();
    const loaded = await loadTranscript(first.path);
    expect(loaded.messages.map((message) => message.uuid)).toEqual([U(1), U(2), U(3)]);
  });

  it("writes tombstones and checkpoints the loader understands", async () => {
    const store = open();
    await store.appendMessage(userPrompt(1, null, "go"));
    await store.appendMessage(assistantReply(2, 1, "partial", ["t1"]));
    await store.appendTombstone(U(2), "stream failed");
    await store.appendMessage(assistantReply(3, 1, "complete"));
    await store.appendCheckpoint(U(3), "a".repeat(40));
    await store.close();
    const loaded = await loadTranscript(store.path);
    expect(loaded.messages.map((message) => message.uuid)).toEqual([U(1), U(3)]);
    expect(loaded.checkpoints).toEqual([expect.objectContaining({ type: "cairn-checkpoint", messageUuid: U(3), commit: "a".repeat(40), sessionId })]);
  });

  it("fsyncs user prompts (not assistant lines or tool results) under the default policy", async () => {
    const store = createJsonlTranscriptStore({ cairnHome, cwd, sessionId, version: "0.1.0" });
    await store.appendMessage(userPrompt(1, null, "go"));
    const afterPrompt = store.syncCount;
    await store.appendMessage(assistantReply(2, 1, "reading", ["t1"]));
    await store.appendMessage(toolResults(3, 2, ["t1"]));
    expect(store.syncCount).toBe(afterPrompt);
    await store.appendMessage(userPrompt(4, 3, "next"));
    expect(store.syncCount).toBe(afterPrompt + 1);
    // One sync made the file's meta line and the prompt durable together.
    expect(afterPrompt).toBe(1);
    await store.close();
  });

  it("fsyncs every line under 'always' and none under 'never'", async () => {
    const always = open("always");
    await always.appendMessage(userPrompt(1, null, "go"));
    await always.appendMessage(assistantReply(2, 1, "ok"));
    expect(always.syncCount).toBe(2);
    await always.close();
    await rm(always.path);
    const never = open("never");
    await never.appendMessage(userPrompt(1, null, "go"));
    await never.close();
    expect(never.syncCount).toBe(0);
  });

  it("refuses invalid messages, writes after close, and session ids that are not file names", async () => {
    const store = open();
    const invalid = { ...userPrompt(1, null, "x"), message: { role: "user", content: 42 } } as never;
    await expect(store.appendMessage(invalid)).rejects.toMatchObject({ code: "invalid-message" });
    await store.close();
    await expect(store.appendMessage(userPrompt(1, null, "x"))).rejects.toMatchObject({ code: "closed" });
    expect(() => createJsonlTranscriptStore({ cairnHome, cwd, sessionId: "../../etc/passwd", version: "0" })).toThrow(TranscriptStoreError);
  });
});
