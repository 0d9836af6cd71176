import { describe, expect, it } from "vitest";
import type { AssistantMessage, ConversationMessage, ContentBlock, SystemMessage, UserMessage } from "../schema/index.ts";
import { INTERRUPTED_TOOL_RESULT, repairForResume } from "./repair.ts";

const timestamp = "2026-11-29T10:00:00.000Z";
let counter = 0;
const newUuid = () => `synthetic-${++counter}`;

function user(uuid: string, content: string | ContentBlock[]): UserMessage {
  return { type: "user", uuid, parentUuid: null, timestamp, message: { role: "user", content } };
}
function assistant(uuid: string, content: ContentBlock[]): AssistantMessage {
  return { type: "assistant", uuid, parentUuid: null, timestamp, message: { id: `msg_${uuid}`, role: "assistant", model: "m", content } };
}
const use = (id: string): ContentBlock => ({ type: "tool_use", id, name: "Bash", input: { command: "ls" } });
const result = (id: string): ContentBlock => ({ type: "tool_result", tool_use_id: id, content: "ok" });
const boundary = (uuid: string): SystemMessage => ({ type: "system", uuid, parentUuid: null, timestamp, subtype: "compact_boundary" });

function pairs(messages: ConversationMessage[]): { uses: string[]; results: string[] } {
  const uses: string[] = [];
  const results: string[] = [];
  for (const message of messages) {
    if (message.type === "system" || typeof message.message.content === "string") continue;
    for (const block of message.message.content) {
      if (block.type === "tool_use") uses.push(block.id);
      if (block.type === "tool_result") results.push(block.tool_use_id);
    }
  }
  return { uses, results };
}

describe("repairForResume", () => {
  it("answers a tool_use the process never answered with a synthetic is_error result, right after its response", () => {
    const repaired = repairForResume([user("u1", "go"), assistant("a1", [use("t1"), use("t2")]), user("r1", [result("t1")]), user("u2", "and then?")], {
      newUuid,
    });
    expect(repaired.map((message) => message.uuid)).toEqual(["u1", "a1", "r1", "synthetic-1", "u2"]);
    expect(repaired[3]).toMatchObject({
      type: "user",
      parentUuid: "r1",
      message: { content: [{ type: "tool_result", tool_use_id: "t2", is_error: true, content: INTERRUPTED_TOOL_RESULT }] },
    });
    const { uses, results } = pairs(repaired);
    expect(results.sort()).toEqual(uses.sort());
  });

  it("answers the tool calls of a last response that was cut off", () => {
    const repaired = repairForResume([user("u1", "go"), assistant("a1", [{ type: "text", text: "running" }, use("t1")])], { newUuid });
    expect(pairs(repaired).results).toEqual(["t1"]);
    expect(repaired).toHaveLength(3);
  });

  it("drops tool results whose tool_use is missing or came later, and a message left empty by that", () => {
    const repaired = repairForResume(
      [
        user("u1", "go"),
        user("orphan", [result("gone")]),
        user("mixed", [result("gone2"), { type: "text", text: "keep me" }]),
        assistant("a1", [use("t1")]),
        user("r1", [result("t1"), result("t1")]),
      ],
      { newUuid },
    );
    expect(repaired.map((message) => message.uuid)).toEqual(["u1", "mixed", "a1", "r1"]);
    expect((repaired[1] as UserMessage).message.content).toEqual([{ type: "text", text: "keep me" }]);
    expect(pairs(repaired)).toEqual({ uses: ["t1"], results: ["t1"] });
  });

  it("keeps what follows the last compact boundary, boundary and summary included", () => {
    const summary: UserMessage = { ...user("s", "summary"), isCompactSummary: true };
    const repaired = repairForResume(
      [user("u1", "old"), assistant("a1", [use("t0")]), boundary("b1"), user("x", "mid"), boundary("b2"), summary, user("u2", "new")],
      { newUuid },
    );
    expect(repaired.map((message) => message.uuid)).toEqual(["b2", "s", "u2"]);
  });

  it("leaves a valid conversation unchanged", () => {
    const messages = [user("u1", "go"), assistant("a1", [use("t1")]), user("r1", [result("t1")]), assistant("a2", [{ type: "text", text: "done" }])];
    expect(repairForResume(messages, { newUuid })).toEqual(messages);
  });
});
