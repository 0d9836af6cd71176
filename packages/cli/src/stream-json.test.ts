import { describe, expect, it } from "vitest";
import { eventToLine, resultLine } from "./stream-json.ts";

describe("stream-json lines", () => {
  it("maps retries and denials onto Claude Code's system lines", () => {
    expect(
      eventToLine({ type: "retry", attempt: 2, maxAttempts: 10, delayMs: 1000, status: 529, errorCode: "overloaded", message: "Overloaded" }, "s1"),
    ).toEqual({
      type: "system",
      subtype: "api_retry",
      attempt: 2,
      max_retries: 10,
      retry_delay_ms: 1000,
      error_status: 529,
      error: "overloaded",
      session_id: "s1",
    });
    expect(
      eventToLine(
        { type: "permission-decision", toolUseId: "t", toolName: "Bash", behavior: "deny", reason: { type: "headless", reason: "print mode" }, waitedMs: 0 },
        "s1",
      ),
    ).toMatchObject({ subtype: "permission_denied", tool_name: "Bash", tool_use_id: "t" });
    expect(eventToLine({ type: "text-delta", index: 0, text: "x" }, "s1")).toBeNull();
  });

  it("builds the result line with usage, denials and the subtype for the stop reason", () => {
    const line = resultLine(
      {
        type: "result",
        terminal: { reason: "max_turns", turnCount: 3 },
        usage: { inputTokens: 1_000_000, outputTokens: 100_000, cacheReadInputTokens: 0, cacheCreationInputTokens: 0 },
        numTurns: 3,
        durationMs: 1200,
        durationApiMs: 900,
        permissionDenials: [{ toolName: "Write", toolUseId: "t1", input: { file_path: "/w/a" } }],
      },
      { sessionId: "s1", model: "claude-sonnet-5-5", finalText: "partial" },
    );
    expect(line).toMatchObject({
      type: "result",
      subtype: "error_max_turns",
      is_error: true,
      num_turns: 3,
      result: "partial",
      usage: { input_tokens: 1_000_000, output_tokens: 100_000 },
      permission_denials: [{ tool_name: "Write", tool_use_id: "t1", tool_input: { file_path: "/w/a" } }],
    });
    expect(line.total_cost_usd).toBeCloseTo(4.5);
  });
});
