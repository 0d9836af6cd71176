import { describe, expect, it } from "vitest";
import { ModelError } from "../model/port.ts";
import type { ConversationMessage } from "../schema/messages.ts";
import type { TranscriptSink } from "../session/port.ts";
import { createScriptedModel, eventsOf, testContext, testDeps } from "../testing/index.ts";
import { runPrompt, type RunPromptResult } from "./run-prompt.ts";

function memorySink() {
  const lines: Array<{ kind: "message"; message: ConversationMessage } | { kind: "tombstone"; uuid: string; reason: string }> = [];
  const sink: TranscriptSink = {
    sessionId: "session-test",
    appendMessage: async (message) => void lines.push({ kind: "message", message }),
    appendTombstone: async (uuid, reason) => void lines.push({ kind: "tombstone", uuid, reason }),
    appendHookRuns: async () => undefined,
    flush: async () => undefined,
    close: async () => undefined,
  };
  return { sink, lines };
}

async function run(turns: Parameters<typeof createScriptedModel>[0]) {
  const model = createScriptedModel(turns);
  const { sink, lines } = memorySink();
  const events = [];
  const loop = runPrompt({
    history: [],
    prompt: "hello",
    sink,
    systemPrompt: ["test"],
    tools: [],
    model: "test-model",
    signal: new AbortController().signal,
    context: testContext(),
    deps: testDeps(model, { sleep: async () => undefined }),
  });
  let result: RunPromptResult;
  while (true) {
    const step = await loop.next();
    if (step.done) {
      result = step.value;
      break;
    }
    events.push(step.value);
  }
  return { events, lines, result, model };
}

describe("query: tombstones for thrown-away attempts", () => {
  it("writes the answer cut at the output limit, then its tombstone; the retry's answer does not descend from it", async () => {
    const { events, lines, result } = await run([
      { content: [{ type: "text", text: "a cut answ" }], stopReason: "max_tokens" },
      { content: [{ type: "text", text: "the whole answer" }] },
    ]);
    const [tombstone] = eventsOf(events, "tombstone");
    expect(tombstone?.uuid).toBeDefined();
    const written = lines.find((line) => line.kind === "message" && line.message.uuid === tombstone!.uuid);
    expect(written?.kind === "message" && written.message).toMatchObject({
      type: "assistant",
      isPartial: true,
      message: { content: [{ type: "text", text: "a cut answ" }] },
    });
    expect(lines.at(-2)).toEqual({ kind: "tombstone", uuid: tombstone!.uuid, reason: expect.stringContaining("output limit") });
    expect(lines.indexOf(written!)).toBeLessThan(lines.indexOf(lines.find((line) => line.kind === "tombstone")!));
    // The conversation the caller keeps has only the retry's answer, chained to the prompt.
    expect(result.messages.map((message) => message.uuid)).not.toContain(tombstone!.uuid);
    const final = result.messages.at(-1)!;
    expect(final.type === "assistant" && final.message.content).toEqual([{ type: "text", text: "the whole answer" }]);
    expect(final.parentUuid).toBe(result.messages[0]!.uuid);
  });

  it("tombstones a response that started and failed before any content, then retried", async () => {
    const { events, lines, result } = await run([
      { content: [{ type: "text", text: "never seen" }], cutAfterParts: { parts: 1, error: new ModelError("overloaded", "Overloaded", { status: 529 }) } },
      { content: [{ type: "text", text: "second try" }] },
    ]);
    const [tombstone] = eventsOf(events, "tombstone");
    expect(tombstone).toMatchObject({ messageId: "msg_scripted_1", reason: "Overloaded" });
    expect(lines.filter((line) => line.kind === "tombstone")).toEqual([{ kind: "tombstone", uuid: tombstone!.uuid, reason: "Overloaded" }]);
    expect(result.messages.map((message) => message.type)).toEqual(["user", "assistant"]);
  });
});
