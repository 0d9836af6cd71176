import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { assistantReply, compactBoundary, toolResults, U, userPrompt } from "../session/__fixtures__/builders.ts";
import { forkSession } from "./transcript-fork.ts";
import { loadTranscript } from "./transcript-reader.ts";
import { createJsonlTranscriptStore } from "./transcript-store.ts";

let cairnHome: string;
beforeEach(async () => {
  cairnHome = await mkdtemp(join(tmpdir(), "cairn-fork-"));
});
afterEach(async () => {
  await rm(cairnHome, { recursive: true, force: true });
});

async function sourceSession(): Promise<string> {
  const store = createJsonlTranscriptStore({ cairnHome, cwd: "/w", sessionId: "source", version: "0", fsync: "never", title: "Source" });
  for (const message of [
    userPrompt(1, null, "first"),
    assistantReply(2, 1, "reading", ["t1", "t2"]),
    toolResults(3, 2, ["t1", "t2"]),
    assistantReply(4, 3, "read both"),
    compactBoundary(5, 4),
    { ...userPrompt(6, 5, "summary of the above"), isCompactSummary: true },
    userPrompt(7, 6, "second"),
    assistantReply(8, 7, "answer two"),
  ]) {
    await store.appendMessage(message);
  }
  await store.appendCheckpoint(U(1), "1".repeat(40));
  await store.appendCheckpoint(U(7), "7".repeat(40));
  await store.close();
  return store.path;
}

describe("forkSession", () => {
  it("writes a new session with the conversation up to the message, same uuids, forkedFrom in its meta", async () => {
    const source = await sourceSession();
    const fork = await forkSession(source, U(4), "forked", { cairnHome, version: "0", fsync: "never" });
    expect(fork).toMatchObject({ sessionId: "forked", messageCount: 4 });
    expect(fork.path).toBe(join(cairnHome, "projects", "-w", "forked.jsonl"));

    const loaded = await loadTranscript(fork.path);
    expect(loaded.meta).toMatchObject({ sessionId: "forked", cwd: "/w", title: "Source", forkedFrom: { sessionId: "source", messageUuid: U(4) } });
    expect(loaded.messages.map((message) => message.uuid)).toEqual([1, 2, 3, 4].map(U));
    expect(loaded.checkpoints.map((checkpoint) => checkpoint.messageUuid)).toEqual([U(1)]);
    // The source is untouched.
    expect((await loadTranscript(source)).messages).toHaveLength(8);
  });

  it("puts the fork beside its source when called with just the ids", async () => {
    const source = await sourceSession();
    const fork = await forkSession(source, U(2), "beside");
    expect(fork.path).toBe(join(cairnHome, "projects", "-w", "beside.jsonl"));
    const loaded = await loadTranscript(fork.path);
    expect(loaded.meta).toMatchObject({ version: "0", forkedFrom: { sessionId: "source", messageUuid: U(2) } });
    // A response is atomic: forking at it keeps its tool results too.
    expect(loaded.messages.map((message) => message.uuid)).toEqual([1, 2, 3].map(U));
  });

  it("forks across a compact boundary, keeping the boundary as Claude Code writes it", async () => {
    const source = await sourceSession();
    const fork = await forkSession(source, U(8), "forked", { cairnHome, version: "0", fsync: "never" });
    const loaded = await loadTranscript(fork.path);
    expect(loaded.messages.map((message) => message.uuid)).toEqual([1, 2, 3, 4, 5, 6, 7, 8].map(U));
    expect(loaded.messages[4]).toMatchObject({ parentUuid: null, logicalParentUuid: U(4) });
    const resumed = await loadTranscript(fork.path, { scope: "since-last-compact" });
    expect(resumed.messages.map((message) => message.uuid)).toEqual([5, 6, 7, 8].map(U));
    expect(loaded.checkpoints.map((checkpoint) => checkpoint.messageUuid)).toEqual([U(1), U(7)]);
  });

  it("refuses to overwrite an existing session and leaves no file when the fork point is unknown", async () => {
    const source = await sourceSession();
    await expect(forkSession(source, U(4), "source", { cairnHome, version: "0" })).rejects.toMatchObject({ code: "session-exists" });
    await expect(forkSession(source, "missing", "other", { cairnHome, version: "0" })).rejects.toMatchObject({ code: "leaf-not-found" });
    await expect(readFile(join(cairnHome, "projects", "-w", "other.jsonl"))).rejects.toMatchObject({ code: "ENOENT" });
  });
});
