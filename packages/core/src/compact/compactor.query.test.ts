import { describe, expect, it } from "vitest";
import { query } from "../loop/query.ts";
import { baseParams } from "../loop/query-test-params.ts";
import { ModelError } from "../model/port.ts";
import { collectEvents, createScriptedModel, eventsOf, testContext, testDeps } from "../testing/index.ts";
import { createCompactor } from "./compactor.ts";
import { conversationBuilder } from "./test-conversation.ts";

const limits = { contextWindow: 10_000, reservedOutputTokens: 1_000, bufferTokens: 500, snip: false, microcompact: false } as const;
const summaryTurn = { content: [{ type: "text" as const, text: "<summary>Earlier: read the config and ran the tests.</summary>" }] };

function history(lastUsage: number) {
  const chat = conversationBuilder("h");
  chat.user("Set up the config loader.");
  chat.round("t0", "Read", { file_path: "/w/config.ts" }, "1\texport const CONFIG_CONTENT = {};");
  chat.round("t1", "Grep", { pattern: "loader" }, "EARLY-CONTENT ".repeat(50));
  chat.round("t2", "Bash", { command: "npm test" }, "all green");
  chat.text("The loader is set up.", { input_tokens: lastUsage, output_tokens: 30 });
  chat.user("Now add validation.");
  return chat.messages;
}

describe("the compactor inside the loop", () => {
  it("compacts before the request, emits the new lines, and the request carries only the summary and the kept tail", async () => {
    const model = createScriptedModel([summaryTurn, { content: [{ type: "text", text: "Validation added." }] }]);
    const compactor = createCompactor({ ...limits, keep: { turns: 1 } });
    const { events, terminal } = await collectEvents(query(baseParams({ messages: history(9_000), deps: testDeps(model, { compactor }) })));
    expect(terminal.reason).toBe("completed");
    expect(eventsOf(events, "compact-boundary")).toHaveLength(1);
    const lines = eventsOf(events, "message").map((event) => event.message);
    expect(lines[0]).toMatchObject({ type: "system", subtype: "compact_boundary", parentUuid: null });
    expect(lines[1]).toMatchObject({ type: "user", isCompactSummary: true });
    const answer = lines.at(-1)!;
    expect(answer.type).toBe("assistant");
    expect(answer.parentUuid).toBe(lines.at(-2)!.uuid);

    const main = JSON.stringify(model.requests[1]!.messages);
    expect(main).toContain("Earlier: read the config and ran the tests.");
    expect(main).toContain("Now add validation.");
    expect(main).not.toContain("EARLY-CONTENT");
    // The file read before the compaction comes back in the attachment.
    expect(main).toContain("CONFIG_CONTENT");
    expect(JSON.stringify(model.requests[0]!.messages)).toContain("EARLY-CONTENT");
  });

  it("forgets the read state of files the model no longer sees, so Edit needs a fresh Read", async () => {
    const model = createScriptedModel([summaryTurn, { content: [{ type: "text", text: "Validation added." }] }]);
    const compactor = createCompactor({ ...limits, keep: { turns: 1 } });
    const context = testContext();
    const read = { mtimeMs: 1, size: 10, readAt: 1, partial: false };
    // config.ts comes back whole in the attachment; gone.ts was read in a part that is summarised away.
    context.readFileState.set("/w/config.ts", read);
    context.readFileState.set("/w/gone.ts", read);
    const { terminal } = await collectEvents(query(baseParams({ messages: history(9_000), context, deps: testDeps(model, { compactor }) })));
    expect(terminal.reason).toBe("completed");
    expect([...context.readFileState.keys()]).toEqual(["/w/config.ts"]);
  });

  it("recovers from prompt-too-long with one reactive compaction, then retries", async () => {
    const model = createScriptedModel([
      { content: [], error: new ModelError("prompt_too_long", "prompt is too long: 250000 tokens > 200000 maximum", { status: 400 }) },
      summaryTurn,
      { content: [{ type: "text", text: "Fits now." }] },
    ]);
    const compactor = createCompactor(limits);
    const { events, terminal } = await collectEvents(query(baseParams({ messages: history(100), deps: testDeps(model, { compactor }) })));
    expect(terminal.reason).toBe("completed");
    expect(eventsOf(events, "error")).toHaveLength(0);
    expect(eventsOf(events, "compact-boundary").map((event) => event.trigger)).toEqual(["reactive"]);
    expect(model.requests).toHaveLength(3);
    expect(JSON.stringify(model.requests[2]!.messages)).toContain("Earlier: read the config and ran the tests.");
  });

  it("surfaces prompt-too-long when the reactive summary fails too, with the conversation intact", async () => {
    const tooLong = () => ({ content: [], error: new ModelError("prompt_too_long", "prompt is too long", { status: 400 }) });
    const model = createScriptedModel([tooLong(), tooLong(), tooLong(), tooLong(), tooLong()]);
    const compactor = createCompactor({ ...limits, summary: { maxPromptTooLongRetries: 1 } });
    const { events, terminal } = await collectEvents(query(baseParams({ messages: history(100), deps: testDeps(model, { compactor }) })));
    expect(terminal.reason).toBe("prompt_too_long");
    expect(eventsOf(events, "compact-boundary")).toHaveLength(0);
    expect(eventsOf(events, "message")).toHaveLength(0);
    expect(compactor.getState().lastError).toMatchObject({ code: "prompt_too_long" });
  });
});
