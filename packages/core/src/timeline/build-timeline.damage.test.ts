import { describe, expect, it } from "vitest";
import { buildTimeline } from "./build-timeline.ts";
import { assistant, prompt, source, T0, toolResult, type ToolUse } from "./test-lines.ts";
import type { TimelineSource } from "./types.ts";

const read: ToolUse = { id: "t-read", name: "Read", input: { file_path: "/ws/a.ts" } };

describe("buildTimeline: tombstones and damaged lines", () => {
  it("marks what a tombstone names (by uuid or by message id) and shows the tombstone", () => {
    const timeline = buildTimeline(
      source([
        assistant("a1", { start: 0, end: 10 }, { messageId: "msg-cut", text: "partial", extra: { isPartial: true } }),
        { type: "tombstone", sessionId: "s1", timestamp: new Date(T0 + 11).toISOString(), tombstoneOf: "msg-cut", reason: "stream failed" },
        prompt("p2", 20, "again"),
        { type: "tombstone", sessionId: "s1", timestamp: new Date(T0 + 21).toISOString(), tombstoneOf: "p2", reason: "rewound" },
        assistant("a3", { start: 30, end: 40 }, { text: "fine", extra: { isPartial: true } }),
      ]),
    );
    const byId = new Map(timeline.events.map((event) => [event.id, event]));
    expect(byId.get("model:msg-cut")!.status).toBe("tombstoned");
    expect(byId.get("prompt:p2")!.status).toBe("tombstoned");
    expect(byId.get("model:msg-a3")!.status).toBe("partial");
    const tombstones = timeline.events.filter((event) => event.kind === "tombstone");
    expect(tombstones.map((event) => event.detail)).toEqual([
      { kind: "tombstone", target: "msg-cut", reason: "stream failed" },
      { kind: "tombstone", target: "p2", reason: "rewound" },
    ]);
    expect(timeline.summary.tombstones).toBe(2);
    // Tombstoned responses are left out of the running totals.
    expect(timeline.totals.t).toHaveLength(1);
  });

  it("survives lines of any shape and keeps what it can", () => {
    const lines: unknown[] = [
      null,
      "not a line",
      42,
      [],
      { type: "user" },
      { type: "assistant", uuid: "x", timestamp: "not a time" },
      { type: "assistant", uuid: "y", timestamp: new Date(T0).toISOString(), message: { id: "m", content: "not blocks", usage: { input_tokens: "many" } } },
      {
        type: "user",
        uuid: "orphan",
        timestamp: new Date(T0 + 5).toISOString(),
        message: { role: "user", content: [{ type: "tool_result", tool_use_id: "nobody" }] },
      },
      toolResult("bad-times", read, { start: 100, end: 50 }),
      { type: "system", uuid: "s", timestamp: new Date(T0 + 7).toISOString(), subtype: "compact_boundary" },
      { type: "system", uuid: "e", timestamp: new Date(T0 + 8).toISOString(), subtype: "api_error", level: "error", content: "boom" },
      { type: "attachment", uuid: "att" },
      assistant("z", { start: 200, end: 300 }, { tools: [{ id: "never-answered", name: "Bash", input: { command: "sleep 100" } }] }),
    ];
    const timeline = buildTimeline(source(lines));
    expect(timeline.events.every((event) => Number.isFinite(event.at))).toBe(true);
    const orphan = timeline.events.find((event) => event.id === "tool:nobody")!;
    expect(orphan.toolName).toBe("unknown tool");
    // A record whose end precedes its start is not drawn as a duration.
    const badTimes = timeline.events.find((event) => event.id === "tool:t-read")!;
    expect([badTimes.start, badTimes.end]).toEqual([null, null]);
    const unanswered = timeline.events.find((event) => event.id === "tool:never-answered")!;
    expect(unanswered.status).toBe("unfinished");
    expect(timeline.events.find((event) => event.kind === "compaction")!.detail).toMatchObject({ trigger: "unknown", preTokens: null });
    expect(timeline.events.find((event) => event.kind === "error")!.detail).toEqual({ kind: "error", message: "boom", relatedEventId: null });
  });

  it("accepts a source whose containers are not arrays", () => {
    const broken = { sessionId: "s", title: null, cwd: null, imported: false, lines: null, sidechains: [{ agentId: 3 }, null] } as unknown as TimelineSource;
    const timeline = buildTimeline(broken);
    expect(timeline.events).toEqual([]);
    expect([timeline.startMs, timeline.endMs]).toEqual([0, 0]);
    expect(timeline.lanes.map((lane) => lane.id)).toEqual(["model", "tools", "permission", "hooks", "compaction", "errors"]);
  });
});
