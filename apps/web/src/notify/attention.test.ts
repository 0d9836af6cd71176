import { describe, expect, it } from "vitest";
import type { SessionEvent } from "../trpc/types.ts";
import { attentionOf, titleWithBadge } from "./attention.ts";

const usage = { inputTokens: 1, outputTokens: 1, cacheReadInputTokens: 0, cacheCreationInputTokens: 0 };
function result(reason: string, error?: { code: string; message: string }): SessionEvent {
  return {
    type: "result",
    terminal: { reason, turnCount: 1, ...(error ? { error } : {}) },
    usage,
    numTurns: 1,
    durationMs: 1,
    durationApiMs: 1,
    permissionDenials: [],
  } as SessionEvent;
}

describe("attentionOf", () => {
  it("names a waiting permission prompt with its tool", () => {
    const event = { type: "permission-request", requestId: "r", toolUseId: "t", toolName: "Bash", input: {}, reason: { type: "mode", mode: "default" } };
    expect(attentionOf(event as unknown as SessionEvent)).toMatchObject({ kind: "permission", body: "The agent wants to use Bash." });
  });

  it("tells an ended run from one an error stopped, and ignores interrupts and other events", () => {
    expect(attentionOf(result("completed"))).toMatchObject({ kind: "ended", title: "Cairn finished" });
    expect(attentionOf(result("max_turns"))).toMatchObject({ kind: "ended", body: "The run ended: max turns." });
    expect(attentionOf(result("model_error", { code: "invalid_request", message: "bad request" }))).toEqual({
      kind: "error",
      title: "Cairn stopped on an error",
      body: "bad request",
    });
    expect(attentionOf(result("aborted_streaming"))).toBeNull();
    expect(attentionOf({ type: "text-delta", index: 0, text: "x" } as SessionEvent)).toBeNull();
  });
});

describe("titleWithBadge", () => {
  it("prefixes the count, and leaves the title alone at zero", () => {
    expect(titleWithBadge("Cairn", 2)).toBe("(2) Cairn");
    expect(titleWithBadge("Cairn", 0)).toBe("Cairn");
  });
});
