import { describe, expect, it } from "vitest";
import type { ToolCallRecord } from "@cairn/core/schema";
import type { ChatItem, ToolCallView } from "./chat-types.ts";
import { formatCost, sessionCost } from "./session-cost.ts";

const assistant = (
  id: string,
  model: string,
  usage: { inputTokens: number; outputTokens: number; cacheReadInputTokens: number; cacheCreationInputTokens: number },
): ChatItem => ({
  kind: "assistant",
  id,
  model,
  streaming: false,
  partial: false,
  blocks: [],
  usage,
});

describe("session cost", () => {
  it("sums tokens with cache reads and writes, and prices each response by its model", () => {
    const totals = sessionCost([
      { kind: "user", id: "u1", text: "hi" },
      assistant("a1", "claude-sonnet-4-5", { inputTokens: 1_000_000, outputTokens: 0, cacheReadInputTokens: 0, cacheCreationInputTokens: 0 }),
      assistant("a2", "claude-sonnet-4-5", { inputTokens: 0, outputTokens: 100_000, cacheReadInputTokens: 1_000_000, cacheCreationInputTokens: 100_000 }),
      assistant("a3", "unknown-local-model", { inputTokens: 5, outputTokens: 5, cacheReadInputTokens: 0, cacheCreationInputTokens: 0 }),
    ]);
    expect(totals).toMatchObject({ inputTokens: 1_000_005, outputTokens: 100_005, cacheReadInputTokens: 1_000_000, cacheCreationInputTokens: 100_000 });
    // 3 (input) + 1.5 (output) + 0.3 (cache read) + 0.375 (cache write)
    expect(totals.costUsd).toBeCloseTo(5.175, 6);
  });

  it("counts auto mode's classifier requests, each priced by its own model", () => {
    const classified = (toolUseId: string, request: ToolCallRecord["classifierRequest"]): ToolCallView => ({
      toolUseId,
      name: "Bash",
      status: "completed",
      input: {},
      inputJson: "{}",
      progress: "",
      result: undefined,
      record: {
        toolUseId,
        name: "Bash",
        startedAt: 0,
        endedAt: 1,
        durationMs: 1,
        permissionWaitMs: 0,
        isError: false,
        ...(request ? { classifierRequest: request } : {}),
      },
      decision: undefined,
      awaitingPermission: false,
    });
    const items = [assistant("a1", "claude-sonnet-4-5", { inputTokens: 1_000_000, outputTokens: 0, cacheReadInputTokens: 0, cacheCreationInputTokens: 0 })];
    const totals = sessionCost(items, {
      t1: classified("t1", { model: "claude-sonnet-4-5", startedAt: 0, endedAt: 1, usage: { input_tokens: 1_000_000, output_tokens: 0 } }),
      t2: classified("t2", { model: "claude-sonnet-4-5", startedAt: 0, endedAt: 1, failure: "api_error" }),
      t3: classified("t3", undefined),
    });
    expect(totals).toMatchObject({ inputTokens: 2_000_000, classifierRequests: 2 });
    expect(totals.costUsd).toBeCloseTo(6, 6);
    expect(sessionCost(items).costUsd).toBeCloseTo(3, 6);
  });

  it("formats small and large costs", () => {
    expect(formatCost(0)).toBe("$0");
    expect(formatCost(0.00123)).toBe("$0.0012");
    expect(formatCost(5.175)).toBe("$5.17");
  });
});
