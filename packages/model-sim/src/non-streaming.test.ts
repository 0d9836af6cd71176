import { describe, expect, it } from "vitest";
import { baseRequest, postJson, sdkClient, startTestSim } from "./test-helpers.ts";

describe("non-streaming requests", () => {
  it("answers create() with the whole message JSON", async () => {
    const sim = await startTestSim({
      scenario: {
        turns: [
          {
            content: [
              { type: "text", text: "Reading it now." },
              { type: "tool_use", name: "Read", input: { file_path: "/repo/a.ts" } },
            ],
            usage: { output_tokens: 12 },
          },
        ],
      },
    });
    const message = await sdkClient(sim).messages.create(baseRequest);
    expect(message).toEqual({
      id: "msg_sim_1",
      type: "message",
      role: "assistant",
      model: "claude-sim-test",
      content: [
        { type: "text", text: "Reading it now." },
        { type: "tool_use", id: "toolu_sim_0_1", name: "Read", input: { file_path: "/repo/a.ts" } },
      ],
      stop_reason: "tool_use",
      stop_sequence: null,
      usage: {
        input_tokens: Math.ceil(JSON.stringify(baseRequest.messages).length / 4),
        output_tokens: 12,
        cache_creation_input_tokens: 0,
        cache_read_input_tokens: 0,
      },
    });
    expect(sim.remainingTurns()).toBe(0);
  });

  it("counts tokens without consuming a turn", async () => {
    const sim = await startTestSim({ scenario: { turns: [{ content: [{ type: "text", text: "hi" }] }] } });
    const messages = [{ role: "user" as const, content: "x".repeat(400) }];
    const counted = await sdkClient(sim).messages.countTokens({ model: "claude-sim-test", messages });
    expect(counted.input_tokens).toBe(Math.ceil(JSON.stringify(messages).length / 4));
    expect(sim.remainingTurns()).toBe(1);
    expect(sim.requests).toMatchObject([{ path: "/v1/messages/count_tokens", turnIndex: null, attempt: 1 }]);
  });

  it("rejects a request without messages as invalid_request_error without consuming a turn", async () => {
    const sim = await startTestSim({ scenario: { turns: [{ content: [] }] } });
    const response = await postJson(sim, "/v1/messages", { model: "m", max_tokens: 5 });
    expect(response.status).toBe(400);
    const body = (await response.json()) as { error: { type: string; message: string } };
    expect(body.error.type).toBe("invalid_request_error");
    expect(body.error.message).toContain("messages");
    expect(sim.remainingTurns()).toBe(1);
  });

  it("rejects a body that is not JSON and still logs it", async () => {
    const sim = await startTestSim();
    const response = await postJson(sim, "/v1/messages", "{not json");
    expect(response.status).toBe(400);
    expect(await response.text()).toContain("not valid JSON");
    expect(sim.requests).toMatchObject([{ body: "{not json", turnIndex: null }]);
  });

  it("answers unknown routes with a 404 error envelope", async () => {
    const sim = await startTestSim();
    const response = await fetch(`${sim.url}/v1/models`);
    expect(response.status).toBe(404);
    expect(await response.json()).toMatchObject({ type: "error", error: { type: "not_found_error" } });
  });
});
