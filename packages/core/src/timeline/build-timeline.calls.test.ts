import { describe, expect, it } from "vitest";
import { buildTimeline, totalsAt } from "./build-timeline.ts";
import { assistant, prompt, source, T0, toolResult, type ToolUse } from "./test-lines.ts";

const read: ToolUse = { id: "t-read", name: "Read", input: { file_path: "/ws/a.ts" } };
const grep: ToolUse = { id: "t-grep", name: "Grep", input: { pattern: "needle" } };
const edit: ToolUse = { id: "t-edit", name: "Edit", input: { file_path: "/ws/a.ts", old_string: "a", new_string: "b" } };

describe("buildTimeline: model and tool calls", () => {
  it("draws the calls of one parallel batch as overlapping bars on separate rows", () => {
    const timeline = buildTimeline(
      source([
        prompt("p1", 0, "look around"),
        assistant("a1", { start: 10, firstToken: 60, end: 200 }, { tools: [read, grep] }),
        toolResult("r1", read, { start: 205, end: 400, batch: 1 }),
        toolResult("r2", grep, { start: 206, end: 300, batch: 1 }),
      ]),
    );
    const tools = timeline.events.filter((event) => event.kind === "tool");
    expect(tools.map((tool) => tool.toolName)).toEqual(["Read", "Grep"]);
    const [first, second] = tools as [(typeof tools)[number], (typeof tools)[number]];
    expect(first.start! < second.end! && second.start! < first.end!).toBe(true);
    expect(new Set(tools.map((tool) => tool.row))).toEqual(new Set([0, 1]));
    expect(tools.map((tool) => (tool.detail.kind === "tool" ? tool.detail.batch : null))).toEqual([1, 1]);
    expect(timeline.lanes.find((lane) => lane.id === "tools")!.rows).toBe(2);
    expect(timeline.timingKnown).toBe(true);
  });

  it("splits a permission wait from the run: a wait segment in its own lane, the run after it", () => {
    const hooks = [{ event: "PreToolUse", name: "audit.sh", startedAt: T0 + 100, endedAt: T0 + 120, outcome: "ok" }];
    const timeline = buildTimeline(
      source([assistant("a1", { start: 0, end: 90 }, { tools: [edit] }), toolResult("r1", edit, { start: 100, end: 2000, waitMs: 1500, asked: true, hooks })]),
    );
    const tool = timeline.events.find((event) => event.kind === "tool")!;
    const wait = timeline.events.find((event) => event.kind === "permission")!;
    expect(tool.detail).toMatchObject({ waitStart: T0 + 120, waitEnd: T0 + 1620, runStart: T0 + 1620, permissionWaitMs: 1500 });
    expect([wait.start, wait.end, wait.lane]).toEqual([T0 + 120, T0 + 1620, "permission"]);
    const hook = timeline.events.find((event) => event.kind === "hook")!;
    expect([hook.lane, hook.start, hook.end, hook.title]).toEqual(["hooks", T0 + 100, T0 + 120, "PreToolUse: audit.sh"]);
  });

  it("gives model calls TTFT, duration, tokens, retries and cost, and keeps running totals", () => {
    const timeline = buildTimeline(
      source([
        assistant("a1", { start: 0, firstToken: 300, end: 1000, attempts: 3 }, { text: "first" }),
        assistant("a2", { start: 2000, end: 2500 }, { text: "second", usage: { input_tokens: 1_000_000, output_tokens: 0 } }),
      ]),
    );
    const [first, second] = timeline.events.filter((event) => event.kind === "model");
    expect(first!.detail).toMatchObject({ ttftMs: 300, durationMs: 1000, retries: 2, tokens: { input: 100, output: 20, cacheRead: 50, cacheWrite: 10 } });
    expect(second!.detail).toMatchObject({ ttftMs: null, durationMs: 500, retries: 0 });
    // Sonnet input: $3 per million tokens.
    expect(second!.detail.kind === "model" && second!.detail.costUsd).toBeCloseTo(3, 6);
    expect(timeline.totals.inputTokens).toEqual([100, 1_000_100]);
    expect(totalsAt(timeline.totals, T0 + 1500).tokens.input).toBe(100);
    expect(totalsAt(timeline.totals, T0 - 1).costUsd).toBe(0);
    expect(timeline.summary.tokens.input).toBe(1_000_100);
  });

  it("marks errors and denials in the errors lane and says why", () => {
    const timeline = buildTimeline(
      source([
        assistant("a1", { start: 0, end: 10 }, { tools: [read, edit] }),
        toolResult("r1", read, { start: 11, end: 20, isError: true, errorClass: "FileNotFound" }, "Error: no such file"),
        toolResult("r2", edit, { start: 11, end: 30, errorClass: "PermissionDenied" }, "denied"),
        assistant("a2", { start: 40, end: 50 }, { text: "API Error: overloaded", extra: { isApiErrorMessage: true } }),
      ]),
    );
    const statuses = timeline.events.map((event) => [event.kind, event.status]);
    expect(statuses).toContainEqual(["tool", "error"]);
    expect(statuses).toContainEqual(["tool", "denied"]);
    expect(statuses).toContainEqual(["model", "error"]);
    expect(timeline.lanes.find((lane) => lane.id === "errors")!.items).toHaveLength(3);
    expect(timeline.summary.errors).toBe(3);
  });

  it("keeps auto mode's decisions with their source classifier and the classifier's reason", () => {
    const denied = toolResult("r1", edit, { start: 11, end: 30, errorClass: "PermissionDenied" }, "refused");
    const reason = { type: "classifier", classifier: "auto-mode", reason: "rewrites a file the user did not mention" };
    denied.toolCall = { ...(denied.toolCall as object), decision: { behavior: "deny", reason, waitedMs: 0, asked: false } };
    const timeline = buildTimeline(source([assistant("a1", { start: 0, end: 10 }, { tools: [edit] }), denied]));
    const tool = timeline.events.find((event) => event.kind === "tool")!;
    expect(tool.detail.kind === "tool" && tool.detail.decision).toEqual({ behavior: "deny", reason, waitedMs: 0, asked: false });
    expect(tool.status).toBe("denied");
  });

  it("gives every event searchable text with its tool input and output", () => {
    const timeline = buildTimeline(
      source([assistant("a1", { start: 0, end: 10 }, { tools: [grep] }), toolResult("r1", grep, { start: 11, end: 20 }, "Found In SRC/Main.ts")]),
    );
    const tool = timeline.events.find((event) => event.kind === "tool")!;
    expect(tool.searchText).toContain("needle");
    expect(tool.searchText).toContain("Found In SRC/Main.ts");
    expect(timeline.summary.toolNames).toEqual(["Grep"]);
  });
});
