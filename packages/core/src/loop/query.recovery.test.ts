import { describe, expect, it } from "vitest";
import type { CompactionInput } from "../compact/port.ts";
import { noCompaction } from "../compact/port.ts";
import { ModelError } from "../model/port.ts";
import { collectEvents, createScriptedModel, eventsOf, testDeps } from "../testing/index.ts";
import { MAX_TOKENS_RESUME_MESSAGE, STREAM_CUT_RESUME_MESSAGE } from "./config.ts";
import { baseParams } from "./query-test-params.ts";
import { query } from "./query.ts";

const text = (value: string) => ({ content: [{ type: "text" as const, text: value }] });
const cutAtLimit = (value: string) => ({ ...text(value), stopReason: "max_tokens" as const });

describe("query: recovery", () => {
  it("escalates the output limit once, then resumes with a note at most three times", async () => {
    const model = createScriptedModel([cutAtLimit("a"), cutAtLimit("b"), cutAtLimit("c"), cutAtLimit("d"), cutAtLimit("e"), text("never")]);
    const { events, terminal } = await collectEvents(query(baseParams({ deps: testDeps(model) })));
    expect(terminal.reason).toBe("completed");
    expect(model.requests.map((request) => request.max_tokens)).toEqual([16_384, 64_000, 64_000, 64_000, 64_000]);
    // The first cut answer was withheld and discarded; the others stay, each followed by the resume note.
    expect(eventsOf(events, "tombstone")).toHaveLength(1);
    const notes = eventsOf(events, "message").filter((event) => event.message.type === "user" && event.message.isMeta);
    expect(notes).toHaveLength(3);
    expect(model.requests[2]!.messages.at(-1)!.content).toEqual([{ type: "text", text: MAX_TOKENS_RESUME_MESSAGE }]);
    expect(eventsOf(events, "notice").map((event) => event.code)).toContain("max_output_tokens");
  });

  it("retries retryable errors with backoff and reports each retry", async () => {
    const delays: number[] = [];
    const model = createScriptedModel([
      { content: [], error: new ModelError("overloaded", "Overloaded", { status: 529 }) },
      { content: [], error: new ModelError("rate_limited", "Slow down", { status: 429, retryAfterMs: 7_000 }) },
      { content: [], error: new ModelError("server_error", "Internal", { status: 500 }) },
      text("finally"),
    ]);
    const deps = testDeps(model, { sleep: async (ms) => void delays.push(ms) });
    const { events, terminal } = await collectEvents(query(baseParams({ deps })));
    expect(terminal.reason).toBe("completed");
    const retries = eventsOf(events, "retry");
    expect(retries.map((event) => [event.attempt, event.status, event.errorCode])).toEqual([
      [1, 529, "overloaded"],
      [2, 429, "rate_limited"],
      [3, 500, "server_error"],
    ]);
    // random() is 0.5 in tests: 500 ms * 1.125, retry-after honoured, then 2000 ms * 1.125.
    expect(delays).toEqual([563, 7_000, 2_250]);
  });

  it("does not retry a request the API rejected as invalid", async () => {
    const model = createScriptedModel([{ content: [], error: new ModelError("invalid_request", "bad field", { status: 400 }) }]);
    const { events, terminal } = await collectEvents(query(baseParams({ deps: testDeps(model) })));
    expect(terminal).toMatchObject({ reason: "model_error", error: { code: "invalid_request" } });
    expect(eventsOf(events, "retry")).toHaveLength(0);
    expect(eventsOf(events, "error")[0]).toMatchObject({ code: "invalid_request", status: 400 });
  });

  it("switches to the fallback model after repeated overload", async () => {
    const overloaded = () => ({ content: [], error: new ModelError("overloaded", "Overloaded", { status: 529 }) });
    const model = createScriptedModel([overloaded(), overloaded(), overloaded(), text("from fallback")]);
    const { events } = await collectEvents(query(baseParams({ deps: testDeps(model), fallbackModel: "small-model" })));
    expect(eventsOf(events, "model-fallback")).toEqual([
      { type: "model-fallback", from: "test-model", to: "small-model", reason: "3 overloaded errors in a row" },
    ]);
    expect(model.requests.map((request) => request.model)).toEqual(["test-model", "test-model", "test-model", "small-model"]);
  });

  it("keeps the content of a cut stream and continues with a resume note", async () => {
    const model = createScriptedModel([
      { ...text("The first half of my answer"), cutAfterParts: { parts: 4, error: new ModelError("connection", "socket hang up") } },
      text(" and the second half."),
    ]);
    const { events, terminal } = await collectEvents(query(baseParams({ deps: testDeps(model) })));
    expect(terminal.reason).toBe("completed");
    const assistants = eventsOf(events, "message").filter((event) => event.message.type === "assistant");
    expect(assistants[0]!.message).toMatchObject({ isPartial: true });
    const second = model.requests[1]!.messages;
    expect(second[1]).toEqual({ role: "assistant", content: [{ type: "text", text: "The first half o" }] });
    expect(second[2]!.content).toEqual([{ type: "text", text: STREAM_CUT_RESUME_MESSAGE }]);
  });

  it("withholds prompt-too-long while reactive compaction makes room, then retries once", async () => {
    const seen: CompactionInput[] = [];
    const model = createScriptedModel([
      { content: [], error: new ModelError("prompt_too_long", "prompt is too long: 300000 tokens > 200000 maximum", { status: 400 }) },
      text("fits now"),
    ]);
    const compactor = {
      ...noCompaction,
      reactive: async (input: CompactionInput) => {
        seen.push(input);
        const summary = {
          type: "user" as const,
          uuid: "summary-1",
          parentUuid: null,
          timestamp: "2026-01-01T00:00:00.000Z",
          isCompactSummary: true,
          message: { role: "user" as const, content: "Summary of the conversation so far." },
        };
        return { messages: [summary], added: [summary], events: [] };
      },
    };
    const { events, terminal } = await collectEvents(query(baseParams({ deps: testDeps(model, { compactor }) })));
    expect(terminal.reason).toBe("completed");
    expect(seen).toHaveLength(1);
    expect(eventsOf(events, "error")).toHaveLength(0);
    expect(JSON.stringify(model.requests[1]!.messages)).toContain("Summary of the conversation so far.");
  });

  it("surfaces prompt-too-long when compaction cannot help", async () => {
    const model = createScriptedModel([{ content: [], error: new ModelError("prompt_too_long", "prompt is too long", { status: 400 }) }]);
    const { events, terminal } = await collectEvents(query(baseParams({ deps: testDeps(model) })));
    expect(terminal.reason).toBe("prompt_too_long");
    expect(eventsOf(events, "error")).toHaveLength(1);
  });
});
