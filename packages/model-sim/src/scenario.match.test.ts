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

  it("refuses a match without text, and an empty match", async () => {
    const sim = await startTestSim();
    expect(() => sim.setScenario({ turns: [{ match: { firstMessageIncludes: "" }, content: say("x") }] })).toThrow(/firstMessageIncludes/);
    expect(() => sim.setScenario({ turns: [{ match: {}, content: say("x") }] })).toThrow(/a match needs/);
  });

  it("matches side requests by model and system text, every given condition holding", async () => {
    const sim = await startTestSim({
      scenario: {
        turns: [
          { match: { model: "small", systemIncludes: "You are the classifier" }, content: say("verdict") },
          { match: { model: "small" }, content: say("small, any system") },
          { content: say("main") },
        ],
      },
    });
    const client = sdkClient(sim);
    const ask = async (model: string, system?: string) => {
      const message = await client.messages.create({ model, max_tokens: 100, messages: [{ role: "user", content: "hi" }], ...(system ? { system } : {}) });
      return message.content.map((block) => (block.type === "text" ? block.text : "")).join("");
    };
    expect(await ask("big", "You are the classifier")).toBe("main");
    expect(await ask("small", "You are a helper")).toBe("small, any system");
    expect(await ask("small", [{ type: "text", text: "You are the classifier of actions" }] as never)).toBe("verdict");
    expect(sim.requests.map((request) => request.turnIndex)).toEqual([2, 1, 0]);
  });
});
