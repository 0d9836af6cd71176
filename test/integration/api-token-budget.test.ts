import { describe, expect, it } from "vitest";
import { eventually, publishedEvents, startApiFixture } from "./api-harness.ts";

const part = (text: string, outputTokens: number) => ({ content: [{ type: "text" as const, text }], usage: { input_tokens: 50, output_tokens: outputTokens } });

describe("token budget in an IDE session", () => {
  it("continues a prompt's run with nudges up to the session's tokenBudget setting and reports the budget used in the result event", async () => {
    await using fixture = await startApiFixture({ scenario: { turns: [part("One.", 2_000), part("Two.", 2_000)] }, settings: { tokenBudget: 4_000 } });
    const { client } = fixture;
    const { sessionId } = await client.session.create.mutate();
    await client.session.send.mutate({ sessionId, prompt: "Write the report" });
    const result = await eventually(() => {
      const found = publishedEvents(fixture.server, sessionId).find((entry) => entry.event.type === "result");
      expect(found).toBeDefined();
      return found!.event;
    }, 30_000);
    expect(result).toMatchObject({ type: "result", tokenBudget: { budget: 4_000, used: 4_000, continuations: 1, stoppedBy: "spent" } });
    const bodies = fixture.sim.requests.filter((request) => request.path === "/v1/messages").map((request) => request.body as { messages: unknown[] });
    expect(bodies).toHaveLength(2);
    expect(JSON.stringify(bodies[1]!.messages.at(-1))).toContain("Stopped at 50% of token target (2,000 / 4,000)");
  });
});
