import { describe, expect, it } from "vitest";
import { sdkClient, startTestSim } from "./test-helpers.ts";

const say = (text: string) => [{ type: "text" as const, text }];

describe("scenario turns with match", () => {
  it("gives a turn only to a request whose first message fits, and the others in order", async () => {
    const sim = await startTestSim({
      scenario: {
        turns: [
          { match: { firstMessageIncludes: "subagent task" }, content: say("for the subagent") },
          { content: say("first for anyone") },
          { content: say("second for anyone") },
        ],
      },
    });
    const client = sdkClient(sim);
    const ask = async (prompt: string) => {
      const message = await client.messages.create({ model: "m", max_tokens: 100, messages: [{ role: "user", content: prompt }] });
      return message.content.map((block) => (block.type === "text" ? block.text : "")).join("");
    };
    expect(await ask("main prompt")).toBe("first for anyone");
    expect(await ask("the subagent task: count files")).toBe("for the subagent");
    expect(await ask("main prompt again")).toBe("second for anyone");
    expect(sim.requests.map((request) => request.turnIndex)).toEqual([1, 0, 2]);
    expect(sim.remainingTurns()).toBe(0);
  });

  it("refuses a match without text", async () => {
    const sim = await startTestSim();
    expect(() => sim.setScenario({ turns: [{ match: { firstMessageIncludes: "" }, content: say("x") }] })).toThrow(/firstMessageIncludes/);
  });
});
