import { describe, expect, it } from "vitest";
import { buildTimeline } from "./build-timeline.ts";
import { compactTimeline } from "./compact.ts";
import { timelineTableOf } from "./event-columns.ts";
import { assistant, source, T0, toolResult, type ToolUse } from "./test-lines.ts";

const bash: ToolUse = { id: "t-bash", name: "Bash", input: { command: "npm test" } };

function withClassifierRequest(line: Record<string, unknown>, request: Record<string, unknown>) {
  line.toolCall = { ...(line.toolCall as object), classifierRequest: request };
  return line;
}

describe("buildTimeline: auto mode's classifier requests", () => {
  it("draws the request as a classifier event beside the permission wait, with its model, tokens and cost, counted in the totals", () => {
    const request = { model: "claude-haiku-4-5", startedAt: T0 + 12, endedAt: T0 + 62, usage: { input_tokens: 1_000_000, output_tokens: 0 } };
    const timeline = buildTimeline(
      source([
        assistant("a1", { start: 0, end: 10 }, { tools: [bash], usage: { input_tokens: 100, output_tokens: 20 } }),
        withClassifierRequest(toolResult("r1", bash, { start: 11, end: 80 }), request),
      ]),
    );
    const classifier = timeline.events.find((event) => event.kind === "classifier")!;
    expect([classifier.lane, classifier.start, classifier.end, classifier.title, classifier.status]).toEqual([
      "permission",
      T0 + 12,
      T0 + 62,
      "Classifier: Bash",
      "ok",
    ]);
    expect(classifier.detail).toMatchObject({ kind: "classifier", toolUseId: "t-bash", model: "claude-haiku-4-5", durationMs: 50, failure: null });
    const cost = classifier.detail.kind === "classifier" ? classifier.detail.costUsd : 0;
    expect(cost).toBeGreaterThan(0);
    expect(classifier.summary).toContain("claude-haiku-4-5");
    expect(classifier.searchText).toContain("classifier");
    // The session's totals include the classifier's tokens and cost beside the model call's.
    expect(timeline.summary.tokens.input).toBe(1_000_100);
    expect(timeline.totals.inputTokens.at(-1)).toBe(1_000_100);
    const model = timeline.events.find((event) => event.kind === "model")!;
    expect(timeline.summary.costUsd).toBeCloseTo((model.detail.kind === "model" ? model.detail.costUsd : 0) + cost, 9);
    // The compact form for the wire keeps the kind, as the viewer's columns read it.
    const { events } = timelineTableOf(compactTimeline(timeline, "v1"));
    expect([events.kind(classifier.index), events.title(classifier.index)]).toEqual(["classifier", "Classifier: Bash"]);
  });

  it("marks a request that gave no verdict, and draws none for a call without one", () => {
    const failed = { model: "claude-haiku-4-5", startedAt: T0 + 12, endedAt: T0 + 20, failure: "api_error" };
    const timeline = buildTimeline(
      source([
        assistant("a1", { start: 0, end: 10 }, { tools: [bash, { id: "t-read", name: "Read" }] }),
        withClassifierRequest(toolResult("r1", bash, { start: 11, end: 30 }), failed),
        toolResult("r2", { id: "t-read", name: "Read" }, { start: 11, end: 15 }),
      ]),
    );
    const classifiers = timeline.events.filter((event) => event.kind === "classifier");
    expect(classifiers).toHaveLength(1);
    expect(classifiers[0]!.status).toBe("error");
    expect(classifiers[0]!.detail).toMatchObject({ tokens: null, costUsd: 0, failure: "api_error" });
    expect(classifiers[0]!.summary).toContain("no verdict (api_error)");
  });
});
