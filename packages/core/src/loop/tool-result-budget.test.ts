import { describe, expect, it } from "vitest";
import { conversationBuilder } from "../compact/test-conversation.ts";
import type { ToolResultFiles } from "../tools/tool-result-files.ts";
import { applyToolResultBudget } from "./tool-result-budget.ts";

function memoryFiles(): ToolResultFiles & { saved: Map<string, string> } {
  const saved = new Map<string, string>();
  return {
    saved,
    async save(toolUseId, content) {
      const path = `/home/u/.cairn/projects/p/s1/tool-results/${toolUseId}.txt`;
      saved.set(path, content);
      return path;
    },
    owns: (path) => saved.has(path),
    read: async (path) => saved.get(path) ?? "",
  };
}

/** One response with three parallel calls (results of 5,000, 3,000 and 1,000 characters), then a later small round. */
function turn() {
  const chat = conversationBuilder();
  chat.user("Look at everything.");
  chat.assistant([
    { type: "tool_use", id: "big", name: "Bash", input: { command: "cat big.log" } },
    { type: "tool_use", id: "mid", name: "Bash", input: { command: "cat mid.log" } },
    { type: "tool_use", id: "small", name: "Bash", input: { command: "cat small.log" } },
  ]);
  chat.result("big", "B".repeat(5_000));
  chat.result("mid", "M".repeat(3_000));
  chat.result("small", "S".repeat(1_000));
  chat.round("later", "Bash", { command: "ls" }, "L".repeat(4_000));
  return chat.messages;
}

const resultText = (messages: Awaited<ReturnType<typeof applyToolResultBudget>>["messages"], id: string) =>
  messages
    .flatMap((message) => (message.type === "user" && typeof message.message.content !== "string" ? message.message.content : []))
    .flatMap((block) => (block.type === "tool_result" && block.tool_use_id === id ? [String(block.content)] : []))[0];

describe("per-message tool-result budget", () => {
  it("saves the largest results of a turn that is over budget and sends a preview with the path instead", async () => {
    const files = memoryFiles();
    const replaced = new Map<string, string>();
    const options = { maxChars: 7_000, files, signal: new AbortController().signal, replaced };
    const { messages, events } = await applyToolResultBudget(turn(), options);
    const big = resultText(messages, "big")!;
    expect(big).toMatch(
      /^<persisted-output>\nOutput too large \(5,000 characters\)\. Full output saved to: \/home\/u\/\.cairn\/projects\/p\/s1\/tool-results\/big\.txt/,
    );
    expect(big).toContain(`Preview (first 2,000 characters):\n${"B".repeat(2_000)}\n`);
    expect(files.saved.get("/home/u/.cairn/projects/p/s1/tool-results/big.txt")).toBe("B".repeat(5_000));
    // 5,000 + 3,000 + 1,000 > 7,000: the largest goes (its preview is about 2,300) and the rest fits; the later round (4,000 alone) is within budget.
    expect(resultText(messages, "mid")).toBe("M".repeat(3_000));
    expect(resultText(messages, "small")).toBe("S".repeat(1_000));
    expect(resultText(messages, "later")).toBe("L".repeat(4_000));
    expect(events).toEqual([{ type: "notice", level: "info", code: "tool_results_saved", message: expect.stringContaining("saved 1 to disk") }]);

    // The next request gets the same replacement, without saving again (the prompt cache stays valid).
    files.saved.clear();
    const again = await applyToolResultBudget(turn(), options);
    expect(resultText(again.messages, "big")).toBe(big);
    expect(files.saved.size).toBe(0);
    expect(again.events).toEqual([]);
  });

  it("leaves a turn within budget alone", async () => {
    const files = memoryFiles();
    const { messages } = await applyToolResultBudget(turn(), { maxChars: 10_000, files, signal: new AbortController().signal, replaced: new Map() });
    expect(messages).toEqual(turn());
    expect(files.saved.size).toBe(0);
  });
});
