import type { AgentEvent } from "@cairn/core";
import { describe, expect, test } from "vitest";
import { recordingTelemetry } from "./recording-telemetry.ts";
import { createSessionTelemetry } from "./session-telemetry.ts";

const now = Date.now();
const assistant: AgentEvent = {
  type: "message",
  message: {
    type: "assistant",
    modelCall: { model: "claude-sonnet-4-5", startedAt: now - 500, firstTokenAt: now - 450, endedAt: now - 400, attempts: 1 },
    message: { model: "claude-sonnet-4-5", usage: { input_tokens: 10, output_tokens: 2 } },
  },
} as unknown as AgentEvent;

describe("session telemetry", () => {
  test("a permission decision becomes a span under its tool call, lasting as long as the wait", () => {
    const { telemetry, spans } = recordingTelemetry();
    const turn = createSessionTelemetry(telemetry, { sessionId: "s1" }).turn("run ls");
    turn.observe(assistant);
    turn.observe({
      type: "permission-decision",
      toolUseId: "toolu_1",
      toolName: "Bash",
      behavior: "allow",
      reason: { type: "user", scope: "session" },
      waitedMs: 250,
    } as AgentEvent);
    const decidedAt = Date.now();
    turn.observe({
      type: "tool-end",
      record: {
        toolUseId: "toolu_1",
        name: "Bash",
        startedAt: decidedAt - 300,
        endedAt: decidedAt + 20,
        durationMs: 320,
        permissionWaitMs: 250,
        isError: false,
      },
    } as unknown as AgentEvent);

    const tool = spans.find((span) => span.name === "cairn.tool Bash");
    const permission = spans.find((span) => span.name === "cairn.permission");
    expect(tool).toBeDefined();
    expect(permission?.parentId).toBe(tool?.id);
    expect(permission?.attributes).toMatchObject({
      "permission.behavior": "allow",
      "permission.reason": "user",
      "decision.source": "user_temporary",
      wait_ms: 250,
    });
    expect(permission!.end! - permission!.start).toBeGreaterThanOrEqual(250);
    expect(permission!.start).toBeGreaterThanOrEqual(tool!.start);
  });

  test("a call without a decision (unknown tool, invalid input) has no permission span", () => {
    const { telemetry, spans } = recordingTelemetry();
    const turn = createSessionTelemetry(telemetry, { sessionId: "s1" }).turn("x");
    turn.observe(assistant);
    turn.observe({
      type: "tool-end",
      record: {
        toolUseId: "toolu_2",
        name: "Nope",
        startedAt: now,
        endedAt: now + 1,
        durationMs: 1,
        permissionWaitMs: 0,
        isError: true,
        errorClass: "UnknownTool",
      },
    } as unknown as AgentEvent);
    expect(spans.map((span) => span.name)).toEqual(["cairn.turn", "cairn.model_request", "cairn.tool Nope"]);
  });

  test("auto mode's classifier requests count in cairn.token.usage and cairn.cost.usage, a timed-out one too", () => {
    const { telemetry, counts } = recordingTelemetry();
    const turn = createSessionTelemetry(telemetry, { sessionId: "s1" }).turn("make the release");
    turn.observe(assistant);
    const toolEnd = (toolUseId: string, classifierRequest?: object) =>
      ({
        type: "tool-end",
        record: { toolUseId, name: "Bash", startedAt: now, endedAt: now + 5, durationMs: 5, permissionWaitMs: 0, isError: false, classifierRequest },
      }) as unknown as AgentEvent;
    const haiku = "claude-haiku-4-5";
    turn.observe(toolEnd("toolu_1", { model: haiku, startedAt: now, endedAt: now + 2, usage: { input_tokens: 1_000, output_tokens: 20 } }));
    turn.observe(toolEnd("toolu_2", { model: haiku, startedAt: now, endedAt: now + 2, usage: { input_tokens: 700, output_tokens: 0 }, failure: "timeout" }));
    // A cached verdict made no request; a request that failed before the API answered reported no usage.
    turn.observe(toolEnd("toolu_3"));
    turn.observe(toolEnd("toolu_4", { model: haiku, startedAt: now, endedAt: now + 2, failure: "api_error" }));

    const classifierTokens = counts.filter((count) => count.instrument === "tokenUsage" && count.attributes?.query_source === "auto_mode_classifier");
    expect(classifierTokens.map((count) => [count.attributes?.type, count.value, count.attributes?.model])).toEqual([
      ["input", 1_000, haiku],
      ["output", 20, haiku],
      ["input", 700, haiku],
    ]);
    const costs = counts.filter((count) => count.instrument === "costUsage");
    expect(costs.map((count) => count.attributes?.query_source)).toEqual([undefined, "auto_mode_classifier", "auto_mode_classifier"]);
    expect(costs[1]!.value).toBeGreaterThan(costs[2]!.value);
    expect(costs[2]!.value).toBeGreaterThan(0);
    // The conversation's own request is counted once, without the classifier's mark.
    const mainTokens = counts.filter((count) => count.instrument === "tokenUsage" && count.attributes?.query_source === undefined);
    expect(mainTokens.map((count) => count.value)).toEqual([10, 2]);
  });
});
