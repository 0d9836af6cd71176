import { describe, expect, it } from "vitest";
import { createScriptedModel, eventsOf } from "../testing/index.ts";
import { createCompactor } from "./compactor.ts";
import { promptCacheState } from "./prompt-cache.ts";
import { compactionInput, conversationBuilder, pairingIsIntact } from "./test-conversation.ts";
import { CLEARED_PREFIX } from "./tool-result-pruning.ts";

const limits = { contextWindow: 100_000, reservedOutputTokens: 1_000, bufferTokens: 500 } as const;
/** The builder stamps message n at second n of 2026-01-01: the last response of `rounds()` is message 11. */
const lastResponseAt = Date.UTC(2026, 0, 1, 0, 0, 11);

/** Six Read rounds of 2,000 characters each, 4,000 tokens used by the last request. */
function rounds() {
  const chat = conversationBuilder();
  for (let index = 1; index <= 6; index++) chat.round(`r${index}`, "Read", { file_path: `/w/f${index}.ts` }, `${index}`.repeat(2_000), { input_tokens: 4_000 });
  return chat.messages;
}

function cleared(messages: ReturnType<typeof rounds>): boolean[] {
  return messages.flatMap((message) =>
    message.type === "user" && typeof message.message.content !== "string"
      ? message.message.content.flatMap((block) => (block.type === "tool_result" ? [String(block.content).startsWith(CLEARED_PREFIX)] : []))
      : [],
  );
}

describe("time-based micro-compact", () => {
  it("tells a warm cache from an expired one by the time of the last response", () => {
    expect(promptCacheState(rounds(), lastResponseAt + 60_000, 300_000)).toEqual({ state: "warm", idleMs: 60_000 });
    expect(promptCacheState(rounds(), lastResponseAt + 300_001, 300_000)).toEqual({ state: "cold", idleMs: 300_001 });
    expect(promptCacheState([], lastResponseAt, 300_000)).toEqual({ state: "none" });
  });

  it("clears old tool results once the cache has expired, keeping the recent turns", async () => {
    let now = lastResponseAt + 6 * 60_000;
    const compactor = createCompactor({ ...limits, now: () => now, timeBasedMicrocompact: { keepRecentTurns: 2 } });
    const result = (await compactor.microcompact(compactionInput(rounds(), createScriptedModel([]))))!;
    expect(cleared(result.messages)).toEqual([true, true, true, true, false, false]);
    expect(result.added).toEqual([]);
    expect(pairingIsIntact(result.messages)).toBe(true);
    expect(eventsOf(result.events, "notice")).toEqual([
      {
        type: "notice",
        level: "info",
        code: "compact_micro_time",
        message: expect.stringMatching(/^The prompt cache has expired \(idle 6 min\): cleared 4 old tool results/),
      },
    ]);
    // Cleared once: the same conversation later has nothing left to clear.
    now += 10 * 60_000;
    expect(await compactor.microcompact(compactionInput(result.messages, createScriptedModel([])))).toBeNull();
  });

  it("rewrites nothing while the cache is warm, even near the threshold", async () => {
    // Threshold 8,500: the 4,000 tokens in use are past the 0.3 trigger ratio.
    const small = { contextWindow: 10_000, reservedOutputTokens: 1_000, bufferTokens: 500 } as const;
    const options = {
      ...small,
      now: () => lastResponseAt + 4 * 60_000,
      microcompact: { keepRecentTurns: 2, triggerRatio: 0.3, minSavingsTokens: 10 },
    } as const;
    expect(await createCompactor(options).microcompact(compactionInput(rounds(), createScriptedModel([])))).toBeNull();
    // The count-based pass still runs when asked to act on a warm cache.
    const warm = (await createCompactor({ ...options, microcompact: { ...options.microcompact, whileWarm: true } }).microcompact(
      compactionInput(rounds(), createScriptedModel([])),
    ))!;
    expect(cleared(warm.messages)).toEqual([true, true, true, true, false, false]);
    expect(eventsOf(warm.events, "notice")[0]).toMatchObject({ code: "compact_micro" });
  });

  it("takes its TTL from the settings, and can be turned off", async () => {
    const at = lastResponseAt + 2 * 60_000;
    const shortTtl = createCompactor({ ...limits, now: () => at, timeBasedMicrocompact: { cacheTtlMs: 60_000, keepRecentTurns: 5 } });
    expect(cleared((await shortTtl.microcompact(compactionInput(rounds(), createScriptedModel([]))))!.messages)).toEqual([
      true,
      false,
      false,
      false,
      false,
      false,
    ]);
    const off = createCompactor({ ...limits, now: () => at + 60 * 60_000, timeBasedMicrocompact: false });
    expect(await off.microcompact(compactionInput(rounds(), createScriptedModel([])))).toBeNull();
  });
});
