import { describe, expect, it } from "vitest";
import { COLLAPSED_PREFIX } from "../compact/collapse-spans.ts";
import { createCompactor } from "../compact/compactor.ts";
import { conversationBuilder } from "../compact/test-conversation.ts";
import { ModelError } from "../model/port.ts";
import { collectEvents, createScriptedModel, eventsOf, testDeps } from "../testing/index.ts";
import { baseParams } from "./query-test-params.ts";
import { query } from "./query.ts";

// Threshold 8,500: collapses are staged from 7,225 tokens and committed from 8,075.
const compactorOptions = {
  contextWindow: 10_000,
  reservedOutputTokens: 1_000,
  bufferTokens: 500,
  snip: false,
  microcompact: false,
  timeBasedMicrocompact: false,
  collapse: {},
} as const;
const text = (value: string) => ({ content: [{ type: "text" as const, text: value }] });
const tooLong = { content: [], error: new ModelError("prompt_too_long", "prompt is too long: 210000 tokens > 200000 maximum", { status: 400 }) };

/** Six Read rounds, then a new prompt: about 7,500 tokens, enough to stage a collapse and not to commit it. */
function history() {
  const chat = conversationBuilder();
  chat.user("Read the six files.");
  for (let index = 1; index <= 6; index++)
    chat.round(`r${index}`, "Read", { file_path: `/w/f${index}.ts` }, `${index}`.repeat(2_000), index === 6 ? { input_tokens: 7_000 } : undefined);
  chat.user("Now compare them.");
  return chat.messages;
}

const sent = (request: { messages: unknown[] } | undefined) => JSON.stringify(request?.messages ?? []);

describe("query: context collapse", () => {
  it("sends the staged spans as they are until the API says the prompt is too long, then drains them and retries without a summary", async () => {
    const model = createScriptedModel([tooLong, text("Compared.")]);
    const compactor = createCompactor(compactorOptions);
    const { events, terminal } = await collectEvents(query(baseParams({ messages: history(), deps: testDeps(model, { compactor }) })));
    expect(terminal.reason).toBe("completed");
    expect(model.requests).toHaveLength(2);
    expect(sent(model.requests[0])).not.toContain(COLLAPSED_PREFIX);
    expect(sent(model.requests[0])).toContain("1".repeat(2_000));
    expect(sent(model.requests[1])).toContain(COLLAPSED_PREFIX);
    expect(sent(model.requests[1])).not.toContain("1".repeat(2_000));
    expect(sent(model.requests[1])).toContain("6".repeat(2_000));
    expect(eventsOf(events, "notice").map((event) => event.code)).toContain("compact_collapse_drain");
    expect(eventsOf(events, "compact-boundary")).toEqual([]);
    expect(eventsOf(events, "error")).toEqual([]);
    expect(compactor.getState().collapses).toEqual({ staged: 0, committed: 1 });
  });

  it("falls back to reactive compaction when the drained request is still too long", async () => {
    const model = createScriptedModel([tooLong, tooLong, text("<summary>1. Primary request: read and compare.</summary>"), text("Compared.")]);
    const compactor = createCompactor(compactorOptions);
    const { events, terminal } = await collectEvents(query(baseParams({ messages: history(), deps: testDeps(model, { compactor }) })));
    expect(terminal.reason).toBe("completed");
    expect(model.requests).toHaveLength(4);
    expect(sent(model.requests[1])).toContain(COLLAPSED_PREFIX);
    expect(model.requests[2]!.tools).toBeUndefined();
    expect(eventsOf(events, "compact-boundary").map((event) => event.trigger)).toEqual(["reactive"]);
  });

  it("without staged collapses goes straight to reactive compaction", async () => {
    const model = createScriptedModel([tooLong, text("<summary>s</summary>"), text("Compared.")]);
    const compactor = createCompactor({ ...compactorOptions, collapse: { stageRatio: 0.99, commitRatio: 1 } });
    const { events } = await collectEvents(query(baseParams({ messages: history(), deps: testDeps(model, { compactor }) })));
    expect(eventsOf(events, "notice").map((event) => event.code)).not.toContain("compact_collapse_drain");
    expect(eventsOf(events, "compact-boundary").map((event) => event.trigger)).toEqual(["reactive"]);
  });
});
