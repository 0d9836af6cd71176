import { describe, expect, it } from "vitest";
import { emptyHookOutcome, type HookDispatcher, type HookEventName } from "../hooks/port.ts";
import { messagesAfterCompactBoundary } from "../loop/messages.ts";
import type { ConversationMessage, UserMessage } from "../schema/messages.ts";
import { createInitialAppState } from "../state/app-state.ts";
import { createStore } from "../state/store.ts";
import { createScriptedModel, eventsOf, sequentialIds } from "../testing/index.ts";
import { createCompactor } from "./compactor.ts";
import { SUMMARY_SYSTEM_PROMPT } from "./summary-prompt.ts";
import { compactionInput, conversationBuilder, pairingIsIntact } from "./test-conversation.ts";

const small = { contextWindow: 10_000, reservedOutputTokens: 1_000, bufferTokens: 500, snip: false, microcompact: false } as const;
const summaryTurn = {
  content: [{ type: "text" as const, text: "<analysis>Going through it.</analysis>\n<summary>1. Primary request: fix the failing math test.</summary>" }],
};

/** A session near the threshold: the last response's usage says 9,000 input tokens (threshold 8,500). */
function session() {
  const chat = conversationBuilder();
  chat.user("Fix the failing test in /w/math.ts.");
  chat.round("t1", "Read", { file_path: "/w/math.ts" }, "1\texport const add = (a, b) => a - b;");
  chat.round("t2", "Bash", { command: "npm test" }, "FAIL math.test.ts: expected 3, got -1");
  chat.round("t3", "Read", { file_path: "/w/notes.md" }, "1\tnotes");
  chat.round("t4", "Edit", { file_path: "/w/math.ts" }, "The file /w/math.ts has been updated.");
  chat.round("t5", "Bash", { command: "npm test" }, "PASS", { input_tokens: 9_000, output_tokens: 40 });
  return chat;
}

function textOf(message: ConversationMessage | undefined): string {
  if (!message || message.type === "system") return "";
  const content = message.message.content;
  return typeof content === "string" ? content : JSON.stringify(content);
}

describe("auto-compact", () => {
  it("does nothing below the threshold", async () => {
    const chat = conversationBuilder();
    chat.user("hi");
    chat.text("hello", { input_tokens: 8_000 });
    chat.user("again");
    const model = createScriptedModel([]);
    expect(await createCompactor(small).autocompact(compactionInput(chat.messages, model))).toBeNull();
    expect(model.requests).toHaveLength(0);
  });

  it("replaces the older conversation with boundary, summary, kept turns and re-attached todos and files", async () => {
    const chat = session();
    const model = createScriptedModel([summaryTurn]);
    const store = createStore(
      createInitialAppState({ model: "test-model", todos: [{ content: "Fix add()", status: "in_progress", activeForm: "Fixing add()" }] }),
    );
    const compactor = createCompactor({
      ...small,
      keep: { turns: 2 },
      uuid: sequentialIds("new"),
      now: () => Date.parse("2026-02-01T00:00:00.000Z"),
      getAppState: store.getState,
      setAppState: store.setState,
      readFile: async (path) => (path === "/w/math.ts" ? "export const add = (a, b) => a + b;\n" : null),
    });
    const result = (await compactor.autocompact(compactionInput(chat.messages, model)))!;
    expect(result).not.toBeNull();
    const [boundary, summary, ...rest] = result.messages;
    const originals = chat.messages;

    // Kept: the last two rounds (t4, t5), copied after the summary with new uuids, pairing intact.
    const kept = rest.slice(0, 4);
    expect(kept.map((message) => (message as { keptFrom?: string }).keptFrom)).toEqual(originals.slice(-4).map((message) => message.uuid));
    expect(kept.map((message) => message.uuid)).toEqual(["new-3", "new-4", "new-5", "new-6"]);
    expect(kept.map((message) => message.parentUuid)).toEqual(["new-2", "new-3", "new-4", "new-5"]);
    expect(kept.some((message) => message.type === "assistant" && message.message.usage !== undefined)).toBe(false);
    expect(pairingIsIntact(messagesAfterCompactBoundary(result.messages))).toBe(true);

    const summarized = originals.slice(0, -4);
    // 9,000 input and 40 output tokens of the last response, plus "PASS" after it.
    expect(boundary).toMatchObject({
      type: "system",
      subtype: "compact_boundary",
      uuid: "new-1",
      parentUuid: null,
      logicalParentUuid: summarized.at(-1)!.uuid,
      timestamp: "2026-02-01T00:00:00.000Z",
      compactMetadata: { trigger: "auto", preTokens: 9_041, summarizedUuids: summarized.map((message) => message.uuid) },
    });
    const postTokens = boundary!.type === "system" ? boundary!.compactMetadata!.postTokens! : 0;
    expect(postTokens).toBeGreaterThan(0);
    expect(postTokens).toBeLessThan(9_000);
    expect(summary).toMatchObject({ type: "user", parentUuid: "new-1", isCompactSummary: true });
    expect(textOf(summary)).toContain("1. Primary request: fix the failing math test.");
    expect(textOf(summary)).not.toContain("<analysis>");
    expect(textOf(summary)).toContain("Continue from where the conversation left off");

    // The Read of /w/math.ts was summarised away: its current contents come back, with the todo list.
    const attachment = rest.at(-1) as UserMessage;
    expect(attachment).toMatchObject({ type: "user", isMeta: true, isCompactAttachment: true, parentUuid: "new-6" });
    expect(textOf(attachment)).toContain("1. [in_progress] Fix add()");
    expect(textOf(attachment)).toContain('<file path="/w/math.ts" contents="current">');
    expect(textOf(attachment)).toContain("1\texport const add = (a, b) => a + b;");
    expect(textOf(attachment)).not.toContain("/w/notes.md"); // deleted now: readFile said null

    expect(result.added).toEqual(result.messages);
    expect(eventsOf(result.events, "compact-boundary")).toEqual([
      { type: "compact-boundary", trigger: "auto", preTokens: 9_041, postTokens, summarizedCount: summarized.length },
    ]);
    expect(store.getState().compaction).toEqual({ consecutiveFailures: 0, breakerTripped: false });
  });

  it("sends one summary request: no tools, the summariser's system prompt, the older messages and the structured prompt", async () => {
    const model = createScriptedModel([summaryTurn]);
    await createCompactor({ ...small, keep: { turns: 2 } }).autocompact(compactionInput(session().messages, model));
    expect(model.requests).toHaveLength(1);
    const request = model.requests[0]!;
    expect(request.tools).toBeUndefined();
    expect(request.system).toEqual([{ type: "text", text: SUMMARY_SYSTEM_PROMPT }]);
    const sent = JSON.stringify(request.messages);
    expect(sent).toContain("Fix the failing test in /w/math.ts.");
    expect(sent).toContain("FAIL math.test.ts");
    expect(sent).not.toContain("PASS"); // kept verbatim, not summarised
    const prompt = JSON.stringify(request.messages.at(-1)!.content);
    for (const section of [
      "Primary request and intent",
      "Key technical concepts",
      "Files and code",
      "Errors and fixes",
      "Pending tasks",
      "Current work",
      "Next step",
    ]) {
      expect(prompt).toContain(section);
    }
  });

  it("runs PreCompact hooks first; their additional context joins the prompt, and a block skips the compaction", async () => {
    const calls: Array<{ event: HookEventName; input: Record<string, unknown>; matchValue: string | undefined }> = [];
    const hooks = (blocked: boolean): HookDispatcher => ({
      async dispatch(event, input, options) {
        calls.push({ event, input, matchValue: options.matchValue });
        return {
          ...emptyHookOutcome(),
          additionalContext: ["Keep every SQL statement."],
          ...(blocked ? { blocked: { hookName: "guard", reason: "not now" } } : {}),
        };
      },
    });
    const model = createScriptedModel([summaryTurn]);
    await createCompactor({ ...small, hooks: hooks(false) }).autocompact(compactionInput(session().messages, model));
    expect(calls).toEqual([{ event: "PreCompact", input: { trigger: "auto", custom_instructions: null }, matchValue: "auto" }]);
    expect(JSON.stringify(model.requests[0]!.messages.at(-1))).toContain("Keep every SQL statement.");

    const untouched = createScriptedModel([summaryTurn]);
    const input = compactionInput(session().messages, untouched);
    const blocked = (await createCompactor({ ...small, hooks: hooks(true) }).autocompact(input))!;
    expect(blocked.messages).toBe(input.messages);
    expect(blocked.added).toEqual([]);
    expect(eventsOf(blocked.events, "notice").map((event) => event.code)).toEqual(["compact_blocked"]);
    expect(untouched.requests).toHaveLength(0);
  });
});
