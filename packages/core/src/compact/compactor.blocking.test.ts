import { describe, expect, it } from "vitest";
import { baseParams } from "../loop/query-test-params.ts";
import { query } from "../loop/query.ts";
import { ModelError } from "../model/port.ts";
import { defaultRetryPolicy } from "../model/retry.ts";
import { collectEvents, createScriptedModel, eventsOf, testDeps } from "../testing/index.ts";
import { createCompactor } from "./compactor.ts";
import { compactionInput, conversationBuilder } from "./test-conversation.ts";

const limits = { contextWindow: 10_000, reservedOutputTokens: 1_000, bufferTokens: 500, snip: false, microcompact: false } as const;

function conversationOf(inputTokens: number) {
  const chat = conversationBuilder();
  chat.user("Refactor the parser.");
  chat.round("t1", "Bash", { command: "npm test" }, "ok", { input_tokens: inputTokens });
  return chat.messages;
}

describe("blocking limit", () => {
  it("with auto-compaction off, blocks a conversation over the hard limit and says what to do", () => {
    const compactor = createCompactor({ ...limits, autoCompact: false });
    const client = createScriptedModel([]);
    expect(compactor.blockingLimit(compactionInput(conversationOf(8_000), client))).toBeNull();
    const blocked = compactor.blockingLimit(compactionInput(conversationOf(9_000), client));
    expect(blocked).toMatchObject({ limit: 8_500 });
    expect(blocked!.tokens).toBeGreaterThanOrEqual(9_000);
    expect(blocked!.message).toMatch(/auto-compaction is off\. Run \/compact to summarise it, or start a new session\./);
  });

  it("never blocks while auto-compaction can still run; blocks once its breaker has tripped", async () => {
    const compactor = createCompactor({ ...limits, retry: { ...defaultRetryPolicy, maxAttempts: 1 }, sleep: async () => undefined });
    const failing = () => ({ content: [], error: new ModelError("server_error", "boom", { status: 500 }) });
    const client = createScriptedModel([failing(), failing(), failing()]);
    const input = compactionInput(conversationOf(9_500), client);
    expect(compactor.blockingLimit(input)).toBeNull();
    for (let attempt = 0; attempt < 3; attempt++) await compactor.autocompact(input);
    expect(compactor.getState().breakerTripped).toBe(true);
    expect(compactor.blockingLimit(input)?.message).toContain("auto-compaction is paused after repeated failures");
  });

  it("ends the loop with blocking_limit before any request is sent", async () => {
    const model = createScriptedModel([{ content: [{ type: "text", text: "never sent" }] }]);
    const compactor = createCompactor({ ...limits, autoCompact: false });
    const messages = [...conversationOf(9_500)];
    messages.push({
      type: "user",
      uuid: "next",
      parentUuid: messages.at(-1)!.uuid,
      timestamp: "2026-01-01T00:00:00.000Z",
      message: { role: "user", content: "and now?" },
    });
    const { events, terminal } = await collectEvents(query(baseParams({ deps: testDeps(model, { compactor }), messages })));
    expect(model.requests).toHaveLength(0);
    expect(terminal).toMatchObject({ reason: "blocking_limit", error: { code: "blocking_limit" } });
    expect(eventsOf(events, "error")[0]?.message).toContain("/compact");
    expect(eventsOf(events, "result")[0]?.terminal.reason).toBe("blocking_limit");
  });
});
