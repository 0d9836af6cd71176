import { describe, expect, it } from "vitest";
import { createScriptedModel, eventsOf } from "../testing/index.ts";
import { COLLAPSED_PREFIX } from "./collapse-spans.ts";
import { createCompactor } from "./compactor.ts";
import { compactionInput, conversationBuilder, pairingIsIntact } from "./test-conversation.ts";

// Threshold 8,500: collapses are staged from 7,225 tokens and committed from 8,075.
const limits = { contextWindow: 10_000, reservedOutputTokens: 1_000, bufferTokens: 500 } as const;
const options = { ...limits, snip: false, microcompact: false, collapse: { keepRecentTurns: 3 } } as const;

/** A prompt, six Read rounds of 2,000 characters (the last result, after the usage, adds about 500 tokens); the same uuids every time. */
function session(lastInput: number) {
  const chat = conversationBuilder();
  chat.user("Read the six files.");
  for (let index = 1; index <= 6; index++)
    chat.round(`r${index}`, "Read", { file_path: `/w/f${index}.ts` }, `${index}`.repeat(2_000), index === 6 ? { input_tokens: lastInput } : undefined);
  return chat.messages;
}

const texts = (messages: ReturnType<typeof session>) =>
  messages.map((message) =>
    message.type === "system" ? "system" : typeof message.message.content === "string" ? message.message.content : JSON.stringify(message.message.content),
  );

describe("context collapse", () => {
  it("stages older spans without touching the conversation, then commits them when the context is nearly full", async () => {
    const compactor = createCompactor(options);
    const model = createScriptedModel([]);
    expect(await compactor.collapse(compactionInput(session(6_500), model))).toBeNull();
    expect(compactor.getState().collapses).toEqual({ staged: 0, committed: 0 });

    expect(await compactor.collapse(compactionInput(session(7_000), model))).toBeNull();
    expect(compactor.getState().collapses).toEqual({ staged: 1, committed: 0 });

    const input = compactionInput(session(7_700), model);
    const result = (await compactor.collapse(input))!;
    expect(compactor.getState().collapses).toEqual({ staged: 0, committed: 1 });
    // The prompt stays; rounds 1–3 become one summary; the last three rounds are kept as they were.
    expect(result.messages.map((message) => message.uuid)).toEqual(["m-1", expect.any(String), ...["m-8", "m-9", "m-10", "m-11", "m-12", "m-13"]]);
    const summary = texts(result.messages)[1]!;
    expect(summary.startsWith(`${COLLAPSED_PREFIX} 3 earlier responses`)).toBe(true);
    expect(summary).toContain("- Read (/w/f1.ts) returned 2,000 characters: 1111");
    expect(summary).toContain("- Read (/w/f3.ts) returned 2,000 characters");
    expect(summary).not.toContain("1".repeat(200));
    expect(result.messages[1]).toMatchObject({ type: "user", isMeta: true, collapsedUuids: ["m-2", "m-3", "m-4", "m-5", "m-6", "m-7"] });
    expect(pairingIsIntact(result.messages)).toBe(true);
    expect(result.added).toEqual([]);
    expect(eventsOf(result.events, "notice")).toEqual([
      {
        type: "notice",
        level: "info",
        code: "compact_collapse",
        message: expect.stringMatching(/^Collapsed 1 older span of the conversation into short summaries \(about 1,\d\d\d tokens freed\)/),
      },
    ]);
    // What was freed is counted: auto-compaction is no longer needed, and no summary is asked for.
    const after = { ...input, messages: result.messages };
    expect(compactor.contextUsage(after).tokens).toBeLessThan(8_200 - 1_000);
    expect(await compactor.autocompact(after)).toBeNull();
    expect(model.requests).toHaveLength(0);
  });

  it("applies a committed collapse again, identically, when the original messages come back", async () => {
    const compactor = createCompactor(options);
    await compactor.collapse(compactionInput(session(7_000), createScriptedModel([])));
    const first = (await compactor.collapse(compactionInput(session(7_700), createScriptedModel([]))))!;
    const again = (await compactor.collapse(compactionInput(session(5_000), createScriptedModel([]))))!;
    expect(again.messages.map((message) => message.uuid)).toEqual(first.messages.map((message) => message.uuid));
    expect(again.messages[1]).toEqual(first.messages[1]);
    expect(again.events).toEqual([]);
  });

  it("keeps the user's prompts out of the spans", async () => {
    const chat = conversationBuilder();
    chat.user("First task.");
    chat.round("a1", "Read", { file_path: "/w/a.ts" }, "a".repeat(3_000));
    chat.text("Done with the first.");
    chat.user("Second task.");
    chat.round("b1", "Read", { file_path: "/w/b.ts" }, "b".repeat(3_000));
    for (let index = 1; index <= 3; index++) chat.round(`c${index}`, "Grep", { pattern: `c${index}` }, "c", index === 3 ? { input_tokens: 8_300 } : undefined);
    const result = (await createCompactor(options).collapse(compactionInput(chat.messages, createScriptedModel([]))))!;
    const shown = texts(result.messages);
    expect(shown.filter((text) => text.startsWith(COLLAPSED_PREFIX))).toHaveLength(2);
    expect(shown.indexOf("First task.")).toBe(0);
    expect(shown[1]).toMatch(/2 earlier responses[\s\S]*You said: "Done with the first\."/);
    expect(shown[2]).toBe("Second task.");
    expect(shown[3]).toMatch(/1 earlier response and/);
    expect(pairingIsIntact(result.messages)).toBe(true);
  });

  it("drains the staged collapses at once after a prompt-too-long answer, and only those", async () => {
    const compactor = createCompactor(options);
    expect(await compactor.drainCollapses(compactionInput(session(7_000), createScriptedModel([])))).toBeNull();
    await compactor.collapse(compactionInput(session(7_000), createScriptedModel([])));
    const drained = (await compactor.drainCollapses(compactionInput(session(7_000), createScriptedModel([]))))!;
    expect(texts(drained.messages)[1]!.startsWith(COLLAPSED_PREFIX)).toBe(true);
    expect(eventsOf(drained.events, "notice")[0]).toMatchObject({
      code: "compact_collapse_drain",
      message: expect.stringMatching(/^The request was too long: collapsed 1/),
    });
    expect(await compactor.drainCollapses(compactionInput(drained.messages, createScriptedModel([])))).toBeNull();
  });

  it("is off unless asked for", async () => {
    const compactor = createCompactor({ ...limits, snip: false, microcompact: false });
    expect(await compactor.collapse(compactionInput(session(8_400), createScriptedModel([])))).toBeNull();
    expect(await compactor.drainCollapses(compactionInput(session(8_400), createScriptedModel([])))).toBeNull();
  });
});
