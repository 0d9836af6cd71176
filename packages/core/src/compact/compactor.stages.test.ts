import { describe, expect, it } from "vitest";
import { createScriptedModel, eventsOf } from "../testing/index.ts";
import { createCompactor } from "./compactor.ts";
import { compactionInput, conversationBuilder, pairingIsIntact } from "./test-conversation.ts";
import { CLEARED_PREFIX, SNIPPED_PREFIX } from "./tool-result-pruning.ts";

const limits = { contextWindow: 10_000, reservedOutputTokens: 1_000, bufferTokens: 500 } as const; // threshold 8,500

/** Three bulky old Bash results (1,500 tokens each), then a small latest round; the last usage says 9,000. */
function bulky() {
  const chat = conversationBuilder();
  chat.user("Find the flaky test.");
  for (let index = 1; index <= 3; index++) chat.round(`t${index}`, "Bash", { command: `npm test -- run ${index}` }, "x".repeat(6_000));
  chat.round("t4", "Bash", { command: "npm test" }, "PASS", { input_tokens: 9_000 });
  return chat.messages;
}

function resultContents(messages: ReturnType<typeof bulky>): string[] {
  return messages.flatMap((message) =>
    message.type === "user" && typeof message.message.content !== "string"
      ? message.message.content.flatMap((block) => (block.type === "tool_result" && typeof block.content === "string" ? [block.content] : []))
      : [],
  );
}

describe("the cheap stages through the compactor", () => {
  it("snip acts past its budget, says so in a notice, and persists nothing", async () => {
    const compactor = createCompactor({ ...limits, microcompact: false, snip: { budgetRatio: 0.4, targetRatio: 0.5 } });
    const result = (await compactor.snip(compactionInput(bulky(), createScriptedModel([]))))!;
    // 4,501 tokens of results > 3,400: the two oldest go (down to 1,501 < 1,700).
    expect(resultContents(result.messages).map((text) => text.startsWith(SNIPPED_PREFIX))).toEqual([true, true, false, false]);
    expect(result.added).toEqual([]);
    expect(eventsOf(result.events, "notice")).toEqual([
      { type: "notice", level: "info", code: "compact_snip", message: expect.stringMatching(/^Snipped 2 old tool results \(about 2,9\d\d tokens\)/) },
    ]);
    expect(pairingIsIntact(result.messages)).toBe(true);
  });

  it("micro-compact waits until the context nears the threshold", async () => {
    const options = { ...limits, snip: false, microcompact: { keepRecentTurns: 1, triggerRatio: 0.75, minSavingsTokens: 100 } } as const;
    const quiet = conversationBuilder();
    quiet.user("hi");
    quiet.round("t1", "Bash", { command: "ls" }, "x".repeat(6_000));
    quiet.round("t2", "Bash", { command: "ls" }, "y", { input_tokens: 3_000 });
    expect(await createCompactor(options).microcompact(compactionInput(quiet.messages, createScriptedModel([])))).toBeNull();

    const result = (await createCompactor(options).microcompact(compactionInput(bulky(), createScriptedModel([]))))!;
    expect(resultContents(result.messages).map((text) => text.startsWith(CLEARED_PREFIX))).toEqual([true, true, true, false]);
    expect(eventsOf(result.events, "notice")[0]).toMatchObject({ code: "compact_micro" });
  });

  it("counts what the cheap stages freed, so auto-compaction is not needed after them", async () => {
    const model = createScriptedModel([{ content: [{ type: "text", text: "<summary>s</summary>" }] }]);
    const compactor = createCompactor({ ...limits, microcompact: false, snip: { budgetRatio: 0.4, targetRatio: 0.5 } });
    const input = compactionInput(bulky(), model);
    expect(compactor.contextUsage(input).aboveThreshold).toBe(true);
    const snipped = (await compactor.snip(input))!;
    const after = { ...input, messages: snipped.messages };
    expect(compactor.contextUsage(after).tokens).toBeLessThan(8_500);
    expect(await compactor.autocompact(after)).toBeNull();
    expect(model.requests).toHaveLength(0);
  });

  it("reports the context meter from the last response's usage", () => {
    const usage = createCompactor(limits).contextUsage({ messages: bulky(), model: "test-model", systemPrompt: [] });
    // 9,000 input tokens of the last response plus "PASS" after it.
    expect(usage).toMatchObject({ tokens: 9_001, source: "usage", contextWindow: 10_000, threshold: 8_500, aboveThreshold: true });
  });
});
