import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { assistantReply, toolResults, U, userPrompt } from "../session/__fixtures__/builders.ts";
import type { ConversationMessage } from "../schema/index.ts";
import { loadTranscript } from "./transcript-reader.ts";

// Links the index resolves without its hash table when they point a few lines back, and with it beyond.
let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), "cairn-far-"));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

const lines = (values: object[], ending = "\n") => values.map((value) => JSON.stringify(value)).join(ending) + ending;
const uuids = (messages: ConversationMessage[]) => messages.map((message) => message.uuid);

/** `count` lines of a side branch (another conversation in the same file) that the main chain skips over. */
function sideBranch(from: number, count: number): object[] {
  return Array.from({ length: count }, (_, index) => userPrompt(from + index, index === 0 ? null : from + index - 1, `side ${index}`));
}

describe("links that reach far back", () => {
  it("resolves a parent thousands of lines back", async () => {
    const path = join(dir, "s.jsonl");
    await writeFile(path, lines([userPrompt(1, null, "main"), ...sideBranch(10_000, 3000), assistantReply(2, 1, "answer")]));
    const loaded = await loadTranscript(path);
    expect(uuids(loaded.messages)).toEqual([U(1), U(2)]);
    expect(loaded.report.brokenLinks).toBe(0);
  });

  it("honours tombstones naming a line or a response written long before", async () => {
    const path = join(dir, "s.jsonl");
    const responses = Array.from({ length: 100 }, (_, index) => assistantReply(100 + index, index === 0 ? 1 : 99 + index, `r${index}`));
    await writeFile(
      path,
      lines([
        userPrompt(1, null, "go"),
        ...responses,
        ...sideBranch(10_000, 1500),
        { type: "tombstone", sessionId: "s", timestamp: "t", tombstoneOf: U(100), reason: "by uuid, far back" },
        { type: "tombstone", sessionId: "s", timestamp: "t", tombstoneOf: "msg_101", reason: "by message id, far back" },
        { ...userPrompt(2, 199, "next"), parentUuid: U(199) },
      ]),
    );
    const loaded = await loadTranscript(path);
    const kept = uuids(loaded.messages);
    expect(kept).not.toContain(U(100));
    expect(kept).not.toContain(U(101));
    expect(kept).toContain(U(102));
    expect(kept.at(-1)).toBe(U(2));
  });

  it("drops the tool results of a response tombstoned by message id", async () => {
    const path = join(dir, "s.jsonl");
    const filler = Array.from({ length: 70 }, (_, index) => assistantReply(300 + index, index === 0 ? 3 : 299 + index, `f${index}`));
    await writeFile(
      path,
      lines([
        userPrompt(1, null, "go"),
        assistantReply(2, 1, "calls", ["t1"]),
        toolResults(3, 2, ["t1"]),
        ...filler,
        { type: "tombstone", sessionId: "s", timestamp: "t", tombstoneOf: "msg_2", reason: "orphaned" },
      ]),
    );
    const loaded = await loadTranscript(path);
    expect(uuids(loaded.messages).slice(0, 2)).toEqual([U(1), U(300)]);
  });

  it("keeps the first of two lines with the same uuid far apart", async () => {
    const path = join(dir, "s.jsonl");
    const between = Array.from({ length: 50 }, (_, index) => userPrompt(100 + index, index === 0 ? 1 : 99 + index, `m${index}`));
    await writeFile(path, lines([userPrompt(1, null, "first"), ...between, { ...userPrompt(1, 149, "copy") }, userPrompt(2, 1, "after")]));
    const loaded = await loadTranscript(path);
    expect(loaded.messages.filter((message) => message.uuid === U(1))).toHaveLength(1);
    expect(loaded.report.duplicateUuids).toBe(1);
  });

  it("keeps a parallel tool result that hangs off its tool_use through a progress line", async () => {
    const path = join(dir, "s.jsonl");
    await writeFile(
      path,
      lines([
        userPrompt(1, null, "go"),
        assistantReply(2, 1, "two calls", ["t1", "t2"]),
        { type: "progress", uuid: U(3), parentUuid: U(2), timestamp: "t", sessionId: "s", data: { percent: 50 } },
        toolResults(4, 3, ["t1"]),
        toolResults(5, 2, ["t2"]),
        assistantReply(6, 5, "done"),
      ]),
    );
    const loaded = await loadTranscript(path);
    expect(uuids(loaded.messages)).toEqual([1, 2, 4, 5, 6].map(U));
  });

  it("falls back to re-reading by identity for CRLF files, checkpoints included", async () => {
    const path = join(dir, "s.jsonl");
    await writeFile(
      path,
      lines(
        [
          userPrompt(1, null, "go ✓"),
          { type: "cairn-checkpoint", sessionId: "s", timestamp: "t", messageUuid: U(1), commit: "c".repeat(40) },
          assistantReply(2, 1, "done"),
        ],
        "\r\n",
      ),
    );
    const loaded = await loadTranscript(path);
    expect(uuids(loaded.messages)).toEqual([U(1), U(2)]);
    expect(loaded.checkpoints.map((checkpoint) => checkpoint.commit)).toEqual(["c".repeat(40)]);
  });
});
