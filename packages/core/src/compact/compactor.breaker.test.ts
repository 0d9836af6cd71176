import { describe, expect, it } from "vitest";
import { ModelError } from "../model/port.ts";
import { defaultRetryPolicy } from "../model/retry.ts";
import { createInitialAppState } from "../state/app-state.ts";
import { createStore } from "../state/store.ts";
import { createScriptedModel, eventsOf, type ScriptedTurn } from "../testing/index.ts";
import { createCompactor } from "./compactor.ts";
import { compactionInput, conversationBuilder } from "./test-conversation.ts";

const summaryTurn: ScriptedTurn = { content: [{ type: "text", text: "<summary>Work so far.</summary>" }] };
const failing = (): ScriptedTurn => ({ content: [], error: new ModelError("server_error", "Internal server error", { status: 500 }) });

function overThreshold() {
  const chat = conversationBuilder();
  chat.user("Refactor the parser.");
  chat.round("t1", "Read", { file_path: "/w/parser.ts" }, "x".repeat(400));
  chat.round("t2", "Bash", { command: "npm test" }, "ok", { input_tokens: 9_500 });
  return chat.messages;
}

function setup() {
  const store = createStore(createInitialAppState({ model: "test-model" }));
  const compactor = createCompactor({
    contextWindow: 10_000,
    reservedOutputTokens: 1_000,
    bufferTokens: 500,
    snip: false,
    microcompact: false,
    getAppState: store.getState,
    setAppState: store.setState,
    // One attempt per summary: each failure is one failed compaction.
    retry: { ...defaultRetryPolicy, maxAttempts: 1 },
    sleep: async () => undefined,
  });
  return { store, compactor };
}

describe("auto-compact failures and the breaker", () => {
  it("keeps the conversation when the summary fails, and counts the failure", async () => {
    const { store, compactor } = setup();
    const model = createScriptedModel([failing()]);
    const messages = overThreshold();
    expect(await compactor.autocompact(compactionInput(messages, model))).toBeNull();
    expect(store.getState().compaction).toEqual({ consecutiveFailures: 1, breakerTripped: false });
    expect(compactor.getState().lastError).toMatchObject({ code: "summary_failed" });
    expect(messages).toHaveLength(5);
  });

  it("trips after three failures in a row, tells the user, then stops trying", async () => {
    const { store, compactor } = setup();
    const model = createScriptedModel([failing(), failing(), failing(), summaryTurn]);
    const input = compactionInput(overThreshold(), model);
    expect(await compactor.autocompact(input)).toBeNull();
    expect(await compactor.autocompact(input)).toBeNull();
    const third = (await compactor.autocompact(input))!;
    expect(third.messages).toBe(input.messages);
    expect(third.added).toEqual([]);
    const [notice] = eventsOf(third.events, "notice");
    expect(notice).toMatchObject({ level: "warning", code: "compact_breaker_tripped" });
    expect(notice!.message).toContain("failed 3 times in a row");
    expect(notice!.message).toContain("/compact");
    expect(store.getState().compaction).toEqual({ consecutiveFailures: 3, breakerTripped: true });

    expect(await compactor.autocompact(input)).toBeNull();
    expect(model.requests).toHaveLength(3);
  });

  it("resets the count on a success", async () => {
    const { store, compactor } = setup();
    const model = createScriptedModel([failing(), failing(), summaryTurn, failing()]);
    const input = compactionInput(overThreshold(), model);
    await compactor.autocompact(input);
    await compactor.autocompact(input);
    expect(store.getState().compaction.consecutiveFailures).toBe(2);
    expect(await compactor.autocompact(input)).not.toBeNull();
    expect(store.getState().compaction).toEqual({ consecutiveFailures: 0, breakerTripped: false });
    await compactor.autocompact(input);
    expect(store.getState().compaction).toEqual({ consecutiveFailures: 1, breakerTripped: false });
  });

  it("resumes auto-compaction after a manual compaction succeeds", async () => {
    const { store, compactor } = setup();
    const model = createScriptedModel([failing(), failing(), failing(), summaryTurn, summaryTurn]);
    const input = compactionInput(overThreshold(), model);
    for (let attempt = 0; attempt < 3; attempt++) await compactor.autocompact(input);
    expect(store.getState().compaction.breakerTripped).toBe(true);
    expect((await compactor.compactNow(input)).ok).toBe(true);
    expect(store.getState().compaction).toEqual({ consecutiveFailures: 0, breakerTripped: false });
    expect(await compactor.autocompact(input)).not.toBeNull();
  });

  it("does not count an empty answer as a summary, nor an abort as a failure", async () => {
    const { store, compactor } = setup();
    const empty = createScriptedModel([{ content: [{ type: "text", text: "<analysis>hmm</analysis>" }] }]);
    expect(await compactor.autocompact(compactionInput(overThreshold(), empty))).toBeNull();
    expect(compactor.getState().lastError).toMatchObject({ code: "empty_summary" });
    expect(store.getState().compaction.consecutiveFailures).toBe(1);

    const controller = new AbortController();
    const held = createScriptedModel([{ ...summaryTurn, beforePart: () => controller.abort() }]);
    expect(await compactor.autocompact(compactionInput(overThreshold(), held, { signal: controller.signal }))).toBeNull();
    expect(compactor.getState().lastError).toMatchObject({ code: "aborted" });
    expect(store.getState().compaction.consecutiveFailures).toBe(1);
  });

  it("keeps its own breaker state without an app state", async () => {
    const compactor = createCompactor({
      contextWindow: 10_000,
      reservedOutputTokens: 1_000,
      bufferTokens: 500,
      retry: { ...defaultRetryPolicy, maxAttempts: 1 },
      maxConsecutiveFailures: 1,
    });
    const model = createScriptedModel([failing()]);
    const result = await compactor.autocompact(compactionInput(overThreshold(), model));
    expect(eventsOf(result!.events, "notice")[0]?.code).toBe("compact_breaker_tripped");
    expect(compactor.getState()).toMatchObject({ consecutiveFailures: 1, breakerTripped: true });
  });
});
