import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { buildTimeline } from "./build-timeline.ts";
import { assistant, prompt, source, toolResult, type ToolUse } from "./test-lines.ts";

const fixture = new URL("./__fixtures__/claude-code-explore-edit.jsonl", import.meta.url);

describe("buildTimeline: imported transcripts, compaction, subagents", () => {
  it("draws an imported Claude Code transcript as points with no invented durations", () => {
    const lines = readFileSync(fixture, "utf8")
      .split("\n")
      .filter((line) => line.trim() !== "")
      .map((line) => JSON.parse(line) as unknown);
    const timeline = buildTimeline(source(lines, { imported: true }));
    expect(timeline.timingKnown).toBe(false);
    expect(timeline.imported).toBe(true);
    const models = timeline.events.filter((event) => event.kind === "model");
    // Four responses, stored as eight lines sharing message ids.
    expect(models).toHaveLength(4);
    expect(models[0]!.detail).toMatchObject({ toolUseIds: expect.arrayContaining([expect.any(String)]) });
    expect(models[0]!.detail.kind === "model" && models[0]!.detail.toolUseIds).toHaveLength(3);
    const tools = timeline.events.filter((event) => event.kind === "tool");
    expect(tools.map((tool) => tool.toolName)).toEqual(["Glob", "Grep", "Read", "Edit", "Bash"]);
    for (const event of [...models, ...tools]) {
      expect([event.start, event.end, event.timingKnown]).toEqual([null, null, false]);
      expect(Number.isFinite(event.at)).toBe(true);
    }
    expect(timeline.events.filter((event) => event.kind === "permission" || event.kind === "hook")).toEqual([]);
    // Usage repeated on each line of a response counts once.
    const first = models[0]!.detail;
    expect(first.kind === "model" && timeline.totals.inputTokens[0]).toBe(first.kind === "model" ? first.tokens!.input : -1);
  });

  it("marks a compaction boundary with what it summarised and the summary text", () => {
    const timeline = buildTimeline(
      source([
        prompt("p1", 0, "hello"),
        assistant("a1", { start: 10, end: 20 }, { text: "hi" }),
        {
          type: "system",
          subtype: "compact_boundary",
          uuid: "c1",
          parentUuid: null,
          logicalParentUuid: "a1",
          sessionId: "s1",
          timestamp: new Date(Date.parse("2026-11-29T10:00:00.030Z")).toISOString(),
          content: "Conversation compacted",
          compactMetadata: { trigger: "manual", preTokens: 120_000, postTokens: 9_000, summarizedUuids: ["p1", "a1"] },
        },
        prompt("s1", 31, "This session is being continued. Summary: greeted.", { isCompactSummary: true }),
      ]),
    );
    const compaction = timeline.events.find((event) => event.kind === "compaction")!;
    expect(compaction.lane).toBe("compaction");
    expect(compaction.detail).toEqual({
      kind: "compaction",
      trigger: "manual",
      preTokens: 120_000,
      postTokens: 9_000,
      summarizedCount: 2,
      summary: "This session is being continued. Summary: greeted.",
    });
    expect(compaction.summary).toContain("120000 → 9000 tokens, 2 messages summarised");
    expect(timeline.events.filter((event) => event.kind === "prompt")).toHaveLength(1);
    expect(timeline.summary.compactions).toBe(1);
  });

  it("gives each subagent its own lane, labelled by the Agent call that ran it", () => {
    const agent: ToolUse = { id: "t-agent", name: "Agent", input: { description: "Find the tests", prompt: "look" } };
    const read: ToolUse = { id: "t-sub-read", name: "Read", input: { file_path: "/ws/x.test.ts" } };
    const sidechain = { isSidechain: true, agentId: "a0000000000000001" };
    const timeline = buildTimeline(
      source(
        [
          assistant("a1", { start: 0, end: 10 }, { tools: [agent] }),
          toolResult("r1", agent, { start: 11, end: 500, batch: 1 }, "found 3", { toolUseResult: { agentId: "a0000000000000001", status: "completed" } }),
        ],
        {
          sidechains: [
            {
              agentId: "a0000000000000001",
              lines: [
                prompt("sp", 12, "look", sidechain),
                assistant("sa", { start: 13, end: 100 }, { tools: [read], extra: sidechain }),
                toolResult("sr", read, { start: 101, end: 150 }, "tests", sidechain),
              ] as never,
            },
          ],
        },
      ),
    );
    const lane = timeline.lanes.find((candidate) => candidate.kind === "subagent")!;
    expect(lane).toMatchObject({ id: "agent:a0000000000000001", label: "Agent: Find the tests", agentId: "a0000000000000001" });
    const inLane = lane.items.map((index) => timeline.events[index]!);
    expect(inLane.map((event) => event.kind)).toEqual(["prompt", "model", "tool"]);
    expect(inLane.every((event) => event.agentId === "a0000000000000001")).toBe(true);
    const call = timeline.events.find((event) => event.id === "tool:t-agent")!;
    expect(call.detail.kind === "tool" && call.detail.spawnedAgentId).toBe("a0000000000000001");
  });
});
