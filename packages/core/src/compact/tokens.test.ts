import { describe, expect, it } from "vitest";
import { CompactionError } from "./errors.ts";
import { conversationBuilder } from "./test-conversation.ts";
import { contextUsage, countContextTokens, estimateTokens, IMAGE_TOKEN_ESTIMATE, resolveContextLimits } from "./tokens.ts";

describe("estimateTokens", () => {
  it("counts text, tool calls and tool results at four characters a token, images at a flat rate", () => {
    const chat = conversationBuilder();
    chat.user("x".repeat(400));
    chat.call("t1", "Read", { file_path: "/a" });
    chat.result("t1", [
      { type: "text", text: "y".repeat(800) },
      { type: "image", source: { type: "base64", media_type: "image/png", data: "zz" } },
    ]);
    const callChars = "Read".length + JSON.stringify({ file_path: "/a" }).length;
    expect(estimateTokens(chat.messages)).toBe(100 + Math.ceil(callChars / 4) + 200 + IMAGE_TOKEN_ESTIMATE);
  });

  it("ignores system lines, which are never sent", () => {
    expect(estimateTokens([{ type: "system", subtype: "compact_boundary", uuid: "b", timestamp: "t", content: "x".repeat(1000) }])).toBe(0);
  });
});

describe("countContextTokens", () => {
  it("takes the last response's usage and estimates only what came after it", () => {
    const chat = conversationBuilder();
    chat.user("x".repeat(4000));
    chat.call("t1", "Read", { file_path: "/a" }, { input_tokens: 900, cache_read_input_tokens: 100, output_tokens: 20 });
    chat.result("t1", "y".repeat(400));
    const count = countContextTokens({ messages: chat.messages, systemPrompt: ["s"] });
    expect(count).toMatchObject({ source: "usage", tokens: 1000 + 20 + 100, anchorUuid: "m-2" });
  });

  it("deducts what snip or micro-compact freed from the messages the usage counted", () => {
    const chat = conversationBuilder();
    chat.user("hi");
    chat.text("ok", { input_tokens: 5000, output_tokens: 10 });
    chat.user("x".repeat(40));
    const count = countContextTokens({ messages: chat.messages, systemPrompt: [], freed: { anchorUuid: "m-2", tokens: 3000 } });
    expect(count.tokens).toBe(5010 - 3000 + 10);
    const stale = countContextTokens({ messages: chat.messages, systemPrompt: [], freed: { anchorUuid: "other", tokens: 3000 } });
    expect(stale.tokens).toBe(5020);
  });

  it("estimates everything when the last response is a kept copy from a compaction, or has no usage", () => {
    const chat = conversationBuilder();
    chat.user("x".repeat(400));
    const kept = chat.text("y".repeat(400), { input_tokens: 90_000 });
    (kept as { keptFrom?: string }).keptFrom = "original";
    const count = countContextTokens({ messages: chat.messages, systemPrompt: ["z".repeat(40)], lastInputTokens: 90_000 });
    expect(count).toMatchObject({ source: "estimate", tokens: 100 + 100 + 10 });
    expect(countContextTokens({ messages: chat.messages, systemPrompt: [], overheadTokens: 500 }).tokens).toBe(700);
  });

  it("falls back to lastInputTokens when the response carries no usage", () => {
    const chat = conversationBuilder();
    chat.user("hello");
    chat.text("x".repeat(40));
    expect(countContextTokens({ messages: chat.messages, systemPrompt: [], lastInputTokens: 777 })).toMatchObject({ source: "usage", tokens: 787 });
  });

  it("counts only what follows the last compact boundary", () => {
    const chat = conversationBuilder();
    chat.user("x".repeat(40_000));
    chat.messages.push({ type: "system", subtype: "compact_boundary", uuid: "b", parentUuid: null, timestamp: "t" });
    chat.user("y".repeat(40));
    expect(countContextTokens({ messages: chat.messages, systemPrompt: [] }).tokens).toBe(10);
  });
});

describe("context limits", () => {
  it("is the window less the output reserve and a buffer, or a percentage of the effective window if lower", () => {
    expect(resolveContextLimits("claude-sonnet-4-5")).toEqual({ contextWindow: 200_000, effectiveWindow: 180_000, threshold: 167_000, blockingLimit: 177_000 });
    expect(resolveContextLimits("claude-sonnet-4-5[1m]").contextWindow).toBe(1_000_000);
    expect(resolveContextLimits("m", { autoCompactPct: 50 }).threshold).toBe(90_000);
    expect(resolveContextLimits("m", { contextWindow: 10_000, reservedOutputTokens: 1_000, bufferTokens: 500 }).threshold).toBe(8_500);
    // The blocking limit keeps room for a manual /compact (3k, or 5 % of a small window), never below the threshold.
    expect(resolveContextLimits("m", { contextWindow: 10_000, reservedOutputTokens: 1_000, bufferTokens: 500 }).blockingLimit).toBe(8_500);
    expect(resolveContextLimits("m", { contextWindow: 10_000, reservedOutputTokens: 1_000, bufferTokens: 2_000 }).blockingLimit).toBe(8_500);
  });

  it("refuses settings that leave no room", () => {
    expect(() => resolveContextLimits("m", { contextWindow: 1_000, reservedOutputTokens: 900, bufferTokens: 200 })).toThrow(CompactionError);
    expect(() => resolveContextLimits("m", { autoCompactPct: 150 })).toThrow();
  });

  it("reports the meter's figures", () => {
    const chat = conversationBuilder();
    chat.user("hi");
    chat.text("ok", { input_tokens: 4_000, output_tokens: 250 });
    const usage = contextUsage(
      { messages: chat.messages, systemPrompt: [], model: "m" },
      { contextWindow: 10_000, reservedOutputTokens: 1_000, bufferTokens: 500 },
    );
    expect(usage).toEqual({
      tokens: 4_250,
      source: "usage",
      contextWindow: 10_000,
      threshold: 8_500,
      percentUsed: 42.5,
      percentLeftUntilCompact: 50,
      aboveThreshold: false,
    });
  });
});
