import { describe, expect, it } from "vitest";
import type { ConversationMessage } from "../schema/messages.ts";
import { conversationBuilder, pairingIsIntact } from "./test-conversation.ts";
import { CLEARED_PREFIX, microcompactToolResults, SNIPPED_PREFIX, snipToolResults } from "./tool-result-pruning.ts";

function resultText(messages: readonly ConversationMessage[], toolUseId: string): string {
  for (const message of messages) {
    if (message.type !== "user" || typeof message.message.content === "string") continue;
    for (const block of message.message.content) {
      if (block.type === "tool_result" && block.tool_use_id === toolUseId)
        return typeof block.content === "string" ? block.content : JSON.stringify(block.content);
    }
  }
  throw new Error(`no result for ${toolUseId}`);
}

function session() {
  const chat = conversationBuilder();
  chat.user("Look around.");
  chat.round("t1", "Bash", { command: "npm test -- --verbose" }, "a".repeat(8_000)); // 2,000 tokens
  chat.round("t2", "Read", { file_path: "/w/small.ts" }, "b".repeat(400)); // 100 tokens
  chat.round("t3", "Read", { file_path: "/w/big.ts" }, "c".repeat(12_000)); // 3,000 tokens
  chat.round("t4", "Grep", { pattern: "TODO" }, "d".repeat(16_000)); // 4,000 tokens, the latest round
  return chat;
}

describe("snip", () => {
  it("does nothing while the tool results fit their budget", () => {
    expect(snipToolResults(session().messages, { budgetTokens: 10_000, targetRatio: 0.75, minResultTokens: 1_000 })).toBeNull();
  });

  it("drops the oldest bulky results down to the target, naming the tool and the size cut", () => {
    const chat = session();
    const outcome = snipToolResults(chat.messages, { budgetTokens: 8_000, targetRatio: 0.75, minResultTokens: 1_000 })!;
    // 9,100 tokens > 8,000: the Bash result goes (7,100 > 6,000), then the big Read (4,100).
    expect(outcome.pruned.map((entry) => entry.toolUseId)).toEqual(["t1", "t3"]);
    expect(resultText(outcome.messages, "t1")).toBe(
      `${SNIPPED_PREFIX} the result of Bash (npm test -- --verbose) (8,000 characters, about 2,000 tokens) was removed.]`,
    );
    expect(resultText(outcome.messages, "t2")).toBe("b".repeat(400));
    expect(resultText(outcome.messages, "t4")).toBe("d".repeat(16_000));
    expect(outcome.freedTokens).toBeGreaterThan(4_900);
    expect(pairingIsIntact(outcome.messages)).toBe(true);
    expect(outcome.messages).toHaveLength(chat.messages.length);
    // The input is not mutated.
    expect(resultText(chat.messages, "t1")).toBe("a".repeat(8_000));
  });

  it("never touches the results of the latest response, which the model has not read", () => {
    const outcome = snipToolResults(session().messages, { budgetTokens: 100, targetRatio: 0.5, minResultTokens: 1_000 })!;
    expect(outcome.pruned.map((entry) => entry.toolUseId)).toEqual(["t1", "t3"]);
  });

  it("does not snip what it already snipped", () => {
    const first = snipToolResults(session().messages, { budgetTokens: 8_000, targetRatio: 0.75, minResultTokens: 1_000 })!;
    expect(snipToolResults(first.messages, { budgetTokens: 4_000, targetRatio: 0.75, minResultTokens: 1_000 })).toBeNull();
  });
});

describe("micro-compact", () => {
  const options = { keepRecentTurns: 2, minSavingsTokens: 1_000, minResultTokens: 50, tools: ["Read", "Bash", "Grep"] };

  it("clears results older than the last N responses, keeping the pairing", () => {
    const outcome = microcompactToolResults(session().messages, options)!;
    expect(outcome.pruned.map((entry) => entry.toolUseId)).toEqual(["t1", "t2"]);
    expect(resultText(outcome.messages, "t2")).toBe(
      `${CLEARED_PREFIX} Read (/w/small.ts) returned 400 characters; the output was removed to save context. Call the tool again if you still need it.]`,
    );
    expect(resultText(outcome.messages, "t3")).toBe("c".repeat(12_000));
    expect(pairingIsIntact(outcome.messages)).toBe(true);
  });

  it("leaves tools it cannot re-run and waits until the savings are worth a cache break", () => {
    expect(microcompactToolResults(session().messages, { ...options, tools: ["Read"] })).toBeNull();
    expect(microcompactToolResults(session().messages, { ...options, minSavingsTokens: 5_000 })).toBeNull();
    expect(microcompactToolResults(session().messages, { ...options, keepRecentTurns: 4 })).toBeNull();
  });
});
