import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import type { AssistantMessage, ConversationMessage } from "../schema/index.ts";
import { TranscriptIndexError } from "../session/transcript-index.ts";
import { loadTranscript } from "./transcript-reader.ts";

const fixture = (name: string) => fileURLToPath(new URL(`../session/__fixtures__/${name}`, import.meta.url));
const U = (n: number) => `00000000-0000-4000-8000-${String(n).padStart(12, "0")}`;
const uuids = (messages: ConversationMessage[]) => messages.map((message) => message.uuid);

describe("rebuilding the conversation from the uuid/parentUuid graph", () => {
  it("walks across a compact boundary through logicalParentUuid", async () => {
    const loaded = await loadTranscript(fixture("compacted.jsonl"));
    expect(uuids(loaded.messages)).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10].map(U));
    expect(loaded.messages[4]).toMatchObject({ type: "system", subtype: "compact_boundary", logicalParentUuid: U(4) });
  });

  it("reads back only what follows the last compact boundary when asked", async () => {
    const loaded = await loadTranscript(fixture("compacted.jsonl"), { scope: "since-last-compact" });
    expect(uuids(loaded.messages)).toEqual([5, 6, 7, 8, 9, 10].map(U));
    expect(loaded.messages[1]).toMatchObject({ isCompactSummary: true });
  });

  it("leaves sidechain lines out, even when the file ends with one", async () => {
    const loaded = await loadTranscript(fixture("sidechain.jsonl"));
    expect(uuids(loaded.messages)).toEqual([1, 2, 3, 4].map(U));
    expect(JSON.stringify(loaded.messages)).not.toContain("Sidechain thinking");
  });

  it("loads a subagent's own transcript, where every line is a sidechain line", async () => {
    const dir = await mkdtemp(join(tmpdir(), "cairn-sidechain-"));
    try {
      const path = join(dir, "agent-1.jsonl");
      const sidechain = (value: object) => `${JSON.stringify({ ...value, isSidechain: true, agentId: "1" })}\n`;
      await writeFile(
        path,
        sidechain({ type: "user", uuid: U(1), parentUuid: null, timestamp: "t", message: { role: "user", content: "Look for the flaky test" } }) +
          sidechain({
            type: "assistant",
            uuid: U(2),
            parentUuid: U(1),
            timestamp: "t",
            message: { id: "m1", role: "assistant", model: "m", content: [{ type: "text", text: "Found it" }] },
          }),
      );
      const loaded = await loadTranscript(path);
      expect(uuids(loaded.messages)).toEqual([U(1), U(2)]);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it("drops tombstoned responses (by message id) and lines (by uuid) but walks through them", async () => {
    const loaded = await loadTranscript(fixture("tombstones.jsonl"));
    expect(uuids(loaded.messages)).toEqual([1, 3, 4, 6].map(U));
    expect(JSON.stringify(loaded.messages)).not.toContain("toolu_orphan");
    expect(JSON.stringify(loaded.messages)).not.toContain("discarded");
    expect(loaded.meta).toMatchObject({ type: "cairn-session", title: "Tombstones" });
    expect(loaded.title).toBe("Tombstones");
  });

  it("merges a response whose block lines are interleaved with tool results, results after it", async () => {
    const loaded = await loadTranscript(fixture("streamed-interleaved.jsonl"));
    expect(loaded.messages.map((message) => message.type)).toEqual(["user", "assistant", "user", "user", "assistant"]);
    const response = loaded.messages[1] as AssistantMessage;
    expect(response.message.content.map((block) => block.type)).toEqual(["text", "tool_use", "tool_use"]);
    // The merged message answers to the uuid of its last block line, which later lines hang off.
    expect(response.uuid).toBe(U(5));
    expect(uuids(loaded.messages).slice(2)).toEqual([4, 6, 8].map(U));
  });

  it("rebuilds the conversation ending at a chosen message (fork point)", async () => {
    const loaded = await loadTranscript(fixture("compacted.jsonl"), { leafUuid: U(7) });
    expect(uuids(loaded.messages)).toEqual([1, 2, 3, 4, 5, 6, 7].map(U));
    await expect(loadTranscript(fixture("compacted.jsonl"), { leafUuid: "nope" })).rejects.toBeInstanceOf(TranscriptIndexError);
  });

  it("keeps a whole response when the fork point is one of its block lines", async () => {
    const loaded = await loadTranscript(fixture("streamed-interleaved.jsonl"), { leafUuid: U(2) });
    const response = loaded.messages[1] as AssistantMessage;
    expect(response.message.content).toHaveLength(3);
    expect(uuids(loaded.messages)).toEqual([1, 5, 4, 6].map(U));
  });
});
