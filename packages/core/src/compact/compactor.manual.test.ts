import { describe, expect, it } from "vitest";
import { ModelError } from "../model/port.ts";
import type { ConversationMessage } from "../schema/messages.ts";
import { createScriptedModel, eventsOf, type ScriptedTurn } from "../testing/index.ts";
import { compactNow, createCompactor } from "./compactor.ts";
import { compactionInput, conversationBuilder } from "./test-conversation.ts";

const summaryTurn: ScriptedTurn = { content: [{ type: "text", text: "<summary>The parser work so far.</summary>" }] };
const limits = { contextWindow: 10_000, reservedOutputTokens: 1_000, bufferTokens: 500, snip: false, microcompact: false } as const;

function smallSession() {
  const chat = conversationBuilder();
  chat.user("Refactor the parser.");
  chat.round("t1", "Read", { file_path: "/w/parser.ts" }, "x".repeat(400));
  chat.text("Done: the parser is refactored.", { input_tokens: 300, output_tokens: 20 });
  return chat.messages;
}

function summaryText(messages: readonly ConversationMessage[]): string {
  const summary = messages.find((message) => message.type === "user" && message.isCompactSummary);
  return summary?.type === "user" && typeof summary.message.content === "string" ? summary.message.content : "";
}

describe("manual compaction (/compact)", () => {
  it("compacts whatever the size and adds the user's instructions to the summary prompt", async () => {
    const model = createScriptedModel([summaryTurn]);
    const compactor = createCompactor(limits);
    const outcome = await compactNow(compactor, compactionInput(smallSession(), model), { instructions: "Focus on the public API changes." });
    expect(outcome.ok).toBe(true);
    const prompt = JSON.stringify(model.requests[0]!.messages.at(-1)!.content);
    expect(prompt).toContain("Additional instructions for this summary:\\nFocus on the public API changes.");
    if (!outcome.ok) return;
    expect(outcome.result.messages[0]).toMatchObject({ subtype: "compact_boundary", compactMetadata: { trigger: "manual" } });
    expect(eventsOf(outcome.result.events, "compact-boundary")[0]?.trigger).toBe("manual");
    // The user will type next: no instruction to carry on by itself.
    expect(summaryText(outcome.result.messages)).not.toContain("Continue from where");
    expect(compactor.getState().compactions).toBe(1);
  });

  it("reports why it did not compact, leaving the conversation alone", async () => {
    const failing = createScriptedModel([{ content: [], error: new ModelError("authentication", "invalid x-api-key", { status: 401 }) }]);
    const outcome = await createCompactor(limits).compactNow(compactionInput(smallSession(), failing));
    expect(outcome.ok).toBe(false);
    if (outcome.ok) return;
    expect(outcome.error).toMatchObject({ name: "CompactionError", code: "summary_failed" });
    expect(outcome.error.message).toContain("invalid x-api-key");

    const nothing = createScriptedModel([]);
    const empty = await createCompactor(limits).compactNow(compactionInput([], nothing));
    expect(empty.ok === false && empty.error.code).toBe("nothing_to_compact");
    expect(nothing.requests).toHaveLength(0);
  });
});

describe("a subagent's conversation", () => {
  it("writes its compaction lines on the subagent's sidechain", async () => {
    const messages = smallSession().map((message) => ({ ...message, agentId: "agent-7", isSidechain: true }));
    const outcome = await createCompactor(limits).compactNow(compactionInput(messages, createScriptedModel([summaryTurn])));
    expect(outcome.ok).toBe(true);
    if (!outcome.ok) return;
    for (const line of outcome.result.added) expect(line).toMatchObject({ agentId: "agent-7", isSidechain: true });
  });
});

describe("reactive compaction", () => {
  it("compacts below the threshold too, as trigger reactive, and returns null when the summary fails", async () => {
    const model = createScriptedModel([summaryTurn]);
    const result = await createCompactor(limits).reactive(compactionInput(smallSession(), model));
    expect(result?.messages[0]).toMatchObject({ compactMetadata: { trigger: "reactive" } });
    expect(summaryText(result!.messages)).toContain("Continue from where");

    const failing = createScriptedModel([{ content: [], error: new ModelError("invalid_request", "bad", { status: 400 }) }]);
    const compactor = createCompactor(limits);
    expect(await compactor.reactive(compactionInput(smallSession(), failing))).toBeNull();
    // Reactive failures do not feed the auto-compaction breaker.
    expect(compactor.getState().consecutiveFailures).toBe(0);
  });

  it("drops the oldest messages when even the summary request is too long", async () => {
    const chat = conversationBuilder();
    chat.user("Start.");
    for (let index = 1; index <= 8; index++) chat.round(`t${index}`, "Bash", { command: `step ${index}` }, `output ${index}`);
    chat.user("And now?");
    const model = createScriptedModel([
      { content: [], error: new ModelError("prompt_too_long", "prompt is too long: 250000 tokens > 200000 maximum", { status: 400 }) },
      summaryTurn,
    ]);
    const result = await createCompactor({ ...limits, keep: { turns: 0 } }).reactive(compactionInput(chat.messages, model));
    expect(result).not.toBeNull();
    const [first, second] = model.requests;
    expect(second!.messages.length).toBeLessThan(first!.messages.length);
    expect(JSON.stringify(first!.messages)).toContain("Start.");
    expect(JSON.stringify(second!.messages)).not.toContain("Start.");
    expect(summaryText(result!.messages)).toMatch(/The \d+ oldest messages did not fit in the summary request/);
  });
});

describe("task budget across compactions", () => {
  it("charges the context compacted away to the remaining budget", async () => {
    const model = createScriptedModel([summaryTurn, summaryTurn]);
    const compactor = createCompactor({ ...limits, taskBudget: { total: 1_000 } });
    expect(compactor.getState().taskBudgetRemaining).toBeUndefined();
    const first = await compactor.compactNow(compactionInput(smallSession(), model));
    // The last response said 300 input + 20 output tokens.
    expect(compactor.getState().taskBudgetRemaining).toBe(1_000 - 320);
    expect(first.ok).toBe(true);
    const chat = conversationBuilder("n");
    chat.user("More.");
    chat.text("Sure.", { input_tokens: 900, output_tokens: 10 });
    await compactor.compactNow(compactionInput(chat.messages, model));
    expect(compactor.getState().taskBudgetRemaining).toBe(0);
  });
});
