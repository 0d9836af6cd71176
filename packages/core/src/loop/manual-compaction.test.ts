import { describe, expect, it } from "vitest";
import { createCompactor } from "../compact/compactor.ts";
import { conversationBuilder } from "../compact/test-conversation.ts";
import { emptyHookOutcome, type HookDispatcher } from "../hooks/port.ts";
import { ModelError } from "../model/port.ts";
import type { AgentEvent } from "../schema/events.ts";
import type { ConversationMessage } from "../schema/messages.ts";
import type { TranscriptSink } from "../session/port.ts";
import { createScriptedModel, fixedClock, sequentialIds, type ScriptedModel } from "../testing/index.ts";
import { manualCompaction, type ManualCompactionOutcome } from "./manual-compaction.ts";

const limits = { contextWindow: 10_000, reservedOutputTokens: 1_000, bufferTokens: 500, snip: false, microcompact: false } as const;
const summaryTurn = { content: [{ type: "text" as const, text: "<summary>The parser work so far.</summary>" }] };

function conversation(): ConversationMessage[] {
  const chat = conversationBuilder();
  chat.user("Refactor the parser.");
  chat.round("t1", "Read", { file_path: "/w/parser.ts" }, "x".repeat(400));
  chat.text("Done: the parser is refactored.", { input_tokens: 300, output_tokens: 20 });
  return chat.messages;
}

/** A sink that records each line and, with it, how many events had been yielded when it was written. */
function recordingSink(yielded: () => number) {
  const lines: Array<{ line: string; afterEvents: number }> = [];
  let flushed = false;
  const sink: TranscriptSink = {
    sessionId: "session-test",
    appendMessage: async (message) => void lines.push({ line: `message ${message.uuid}`, afterEvents: yielded() }),
    appendTombstone: async (uuid) => void lines.push({ line: `tombstone ${uuid}`, afterEvents: yielded() }),
    appendHookRuns: async (event) => void lines.push({ line: `hook-runs ${event}`, afterEvents: yielded() }),
    flush: async () => void (flushed = true),
    close: async () => undefined,
  };
  return { sink, lines, flushed: () => flushed };
}

/** SessionStart hooks that add one line of context. */
const sessionStartHooks: HookDispatcher = {
  async dispatch(event) {
    if (event !== "SessionStart") return emptyHookOutcome();
    return { ...emptyHookOutcome(), ran: [{ hookName: "start.sh", durationMs: 1, exitCode: 0 }], additionalContext: ["Branch: main"] };
  },
};

async function run(model: ScriptedModel, hooks?: HookDispatcher) {
  const events: AgentEvent[] = [];
  const recorded = recordingSink(() => events.length);
  const steps = manualCompaction({
    compactor: createCompactor(limits),
    sink: recorded.sink,
    messages: conversation(),
    model: "test-model",
    systemPrompt: ["You are a test agent."],
    signal: new AbortController().signal,
    client: model,
    lastInputTokens: null,
    instructions: "Keep the API notes.",
    hooks,
    uuid: sequentialIds("note"),
    now: fixedClock().now,
  });
  let outcome: ManualCompactionOutcome | undefined;
  while (outcome === undefined) {
    const step = await steps.next();
    if (step.done) outcome = step.value;
    else events.push(step.value);
  }
  return { events, outcome, ...recorded };
}

describe("manualCompaction (/compact outside the loop)", () => {
  it("writes each line before its event, then SessionStart's context chained after the summary, and returns the figures", async () => {
    const { events, outcome, lines, flushed } = await run(createScriptedModel([summaryTurn]), sessionStartHooks);

    expect(outcome.ok).toBe(true);
    const boundary = events.find((event) => event.type === "compact-boundary");
    expect(boundary?.type).toBe("compact-boundary");
    expect(outcome).toEqual({
      ok: true,
      figures:
        boundary?.type === "compact-boundary"
          ? { preTokens: boundary.preTokens, postTokens: boundary.postTokens, summarizedCount: boundary.summarizedCount }
          : null,
    });
    const messages = events.flatMap((event) => (event.type === "message" ? [event.message] : []));
    const note = messages.at(-1)!;
    expect(note).toMatchObject({ type: "user", isMeta: true, uuid: "note-1", parentUuid: messages.at(-2)!.uuid, message: { content: "Branch: main" } });
    // Every message line is on disk before its event is yielded.
    for (const message of messages) {
      const index = events.findIndex((event) => event.type === "message" && event.message.uuid === message.uuid);
      expect(lines.find((line) => line.line === `message ${message.uuid}`)?.afterEvents).toBe(index);
    }
    expect(lines.map((line) => line.line)).toContain("hook-runs SessionStart");
    expect(flushed()).toBe(true);
  });

  it("runs no SessionStart without hooks", async () => {
    const { events, outcome } = await run(createScriptedModel([summaryTurn]));
    expect(outcome.ok).toBe(true);
    expect(events.some((event) => event.type === "hook-runs")).toBe(false);
    expect(events.some((event) => event.type === "message" && event.message.type === "user" && event.message.isMeta === true)).toBe(false);
  });

  it("returns a failure as a value and writes nothing", async () => {
    const failing = createScriptedModel([{ content: [], error: new ModelError("authentication", "invalid x-api-key", { status: 401 }) }]);
    const { outcome, lines, flushed } = await run(failing, sessionStartHooks);
    expect(outcome.ok).toBe(false);
    expect(outcome.ok === false && outcome.error.code).toBe("summary_failed");
    expect(lines).toEqual([]);
    expect(flushed()).toBe(false);
  });
});
