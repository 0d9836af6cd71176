import { describe, expect, it } from "vitest";
import { safeCutPoints, splitForCompaction } from "./split.ts";
import { conversationBuilder, pairingIsIntact } from "./test-conversation.ts";

describe("safeCutPoints", () => {
  it("never allows a cut between a tool_use and its result", () => {
    const chat = conversationBuilder();
    chat.user("go"); // 0
    chat.assistant([
      { type: "tool_use", id: "a", name: "Read", input: {} },
      { type: "tool_use", id: "b", name: "Read", input: {} },
    ]); // 1
    chat.result("a", "A"); // 2
    chat.result("b", "B"); // 3
    chat.text("done"); // 4
    expect(safeCutPoints(chat.messages)).toEqual([true, true, false, false, true, true]);
  });

  it("does not split one response written as several lines", () => {
    const chat = conversationBuilder();
    chat.user("go");
    const first = chat.text("part one");
    const second = chat.text("part two");
    second.message.id = first.message.id;
    expect(safeCutPoints(chat.messages)[2]).toBe(false);
  });
});

describe("splitForCompaction", () => {
  function longSession() {
    const chat = conversationBuilder();
    chat.user("Fix the bug.");
    for (let index = 1; index <= 6; index++) chat.round(`t${index}`, "Read", { file_path: `/w/${index}.ts` }, "x".repeat(400));
    return chat;
  }

  it("keeps the last turns verbatim, starting at a safe cut", () => {
    const chat = longSession();
    const split = splitForCompaction(chat.messages, { keepTurns: 2, keepTokens: 10_000 })!;
    expect(split.keep.map((message) => message.uuid)).toEqual(chat.messages.slice(-4).map((message) => message.uuid));
    expect(split.keep[0]!.type).toBe("assistant");
    expect(pairingIsIntact(split.summarize)).toBe(true);
    expect(pairingIsIntact(split.keep)).toBe(true);
  });

  it("keeps less when the recent turns are over the token budget, down to nothing", () => {
    const chat = longSession();
    // A round is about 107 tokens (a 400-character result and its call).
    expect(splitForCompaction(chat.messages, { keepTurns: 5, keepTokens: 250 })!.keep).toHaveLength(4);
    expect(splitForCompaction(chat.messages, { keepTurns: 5, keepTokens: 150 })!.keep).toHaveLength(2);
    expect(splitForCompaction(chat.messages, { keepTurns: 5, keepTokens: 50 })!.keep).toHaveLength(0);
  });

  it("gives up kept messages until there is something new to summarise, and returns null when there is nothing", () => {
    const chat = conversationBuilder();
    const summary = chat.user("Summary of earlier work");
    summary.isCompactSummary = true;
    chat.user("next question");
    chat.text("answer");
    const split = splitForCompaction(chat.messages, { keepTurns: 10, keepTokens: 10_000 })!;
    expect(split.summarize.map((message) => message.uuid)).toEqual(["m-1", "m-2"]);
    expect(splitForCompaction([summary], { keepTurns: 10, keepTokens: 10_000 })).toBeNull();
  });
});
