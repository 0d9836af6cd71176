import { describe, expect, it } from "vitest";
import type { Scenario } from "./scenario.ts";
import { baseRequest, rawStreamEvents, sdkClient, startTestSim } from "./test-helpers.ts";

const richTurn: Scenario["turns"][number] = {
  content: [
    { type: "thinking", thinking: "The user wants the weather; I should call the tool for Paris.", signature: "sig_abc" },
    { type: "redacted_thinking", data: "EncryptedOpaqueBlob==" },
    { type: "text", text: "Let me check the weather in Paris for you — one moment. ☀️" },
    {
      type: "tool_use",
      id: "toolu_weather",
      name: "get_weather",
      input: { location: "Paris, France", unit: "celsius", days: [1, 2, 3], nested: { deep: true } },
    },
  ],
  usage: { input_tokens: 321, output_tokens: 45, cache_read_input_tokens: 7 },
};

describe("streaming wire format", () => {
  it("streams thinking, redacted thinking, text and chunked tool input that the SDK assembles exactly", async () => {
    const sim = await startTestSim({ scenario: { turns: [richTurn] } });
    const client = sdkClient(sim);

    const stream = client.messages.stream(baseRequest);
    const textDeltas: string[] = [];
    stream.on("text", (delta) => textDeltas.push(delta));
    const message = await stream.finalMessage();

    expect(message.content).toEqual(richTurn.content);
    expect(message.stop_reason).toBe("tool_use");
    expect(message.model).toBe("claude-sim-test");
    expect(message.id).toMatch(/^msg_sim_\d+$/);
    expect(message.usage).toMatchObject({ input_tokens: 321, output_tokens: 45, cache_read_input_tokens: 7 });
    expect(textDeltas.length).toBeGreaterThan(1);
    expect(textDeltas.join("")).toBe("Let me check the weather in Paris for you — one moment. ☀️");
  });

  it("sends the real event sequence with many small deltas", async () => {
    const sim = await startTestSim({ scenario: { turns: [richTurn] }, textChunkSize: 8 });
    const events = await rawStreamEvents(sim);
    const names = events.map((event) => event.event);

    expect(names[0]).toBe("message_start");
    expect(names.slice(1, 3)).toEqual(["content_block_start", "ping"]);
    expect(names.slice(-2)).toEqual(["message_delta", "message_stop"]);
    for (const event of events) expect((event.data as { type: string }).type).toBe(event.event);

    const deltaTypes = events.filter((event) => event.event === "content_block_delta").map((event) => (event.data as { delta: { type: string } }).delta.type);
    const count = (type: string): number => deltaTypes.filter((deltaType) => deltaType === type).length;
    expect(count("thinking_delta")).toBeGreaterThanOrEqual(7);
    expect(count("signature_delta")).toBe(1);
    expect(count("text_delta")).toBeGreaterThanOrEqual(7);
    expect(count("input_json_delta")).toBeGreaterThanOrEqual(3);

    const start = events[0]?.data as { message: { content: unknown[]; stop_reason: unknown; usage: object } };
    expect(start.message.content).toEqual([]);
    expect(start.message.stop_reason).toBeNull();
    expect(start.message.usage).toMatchObject({ input_tokens: 321 });
    const toolStart = events.find((event) => event.event === "content_block_start" && JSON.stringify(event.data).includes("tool_use"));
    expect(toolStart?.data).toMatchObject({ index: 3, content_block: { type: "tool_use", input: {} } });
  });

  it("splits even short tool input into at least three JSON chunks", async () => {
    const sim = await startTestSim({
      scenario: { turns: [{ content: [{ type: "tool_use", name: "Bash", input: { command: "ls" } }] }] },
    });
    const events = await rawStreamEvents(sim);
    const chunks = events
      .filter((event) => event.event === "content_block_delta")
      .map((event) => (event.data as { delta: { partial_json: string } }).delta.partial_json);
    expect(chunks.length).toBeGreaterThanOrEqual(3);
    expect(JSON.parse(chunks.join(""))).toEqual({ command: "ls" });
  });

  it("fills in defaults: tool ids, thinking signature, stop reason and estimated usage", async () => {
    const sim = await startTestSim({
      scenario: {
        turns: [
          { content: [{ type: "text", text: "plain answer" }] },
          {
            content: [
              { type: "thinking", thinking: "hmm" },
              { type: "tool_use", name: "Read", input: { file_path: "/a" } },
              { type: "tool_use", name: "Read", input: { file_path: "/b" } },
            ],
          },
        ],
      },
    });
    const client = sdkClient(sim);

    const first = await client.messages.stream(baseRequest).finalMessage();
    expect(first.stop_reason).toBe("end_turn");
    expect(first.usage.input_tokens).toBe(Math.ceil(JSON.stringify(baseRequest.messages).length / 4));
    expect(first.usage.output_tokens).toBe(Math.ceil("plain answer".length / 4));

    const second = await client.messages.stream(baseRequest).finalMessage();
    expect(second.stop_reason).toBe("tool_use");
    expect(second.content).toEqual([
      { type: "thinking", thinking: "hmm", signature: "sig_sim" },
      { type: "tool_use", id: "toolu_sim_1_1", name: "Read", input: { file_path: "/a" } },
      { type: "tool_use", id: "toolu_sim_1_2", name: "Read", input: { file_path: "/b" } },
    ]);
    expect(second.id).not.toBe(first.id);
  });

  it("honours scripted stop_reason and model, and streams an empty content list", async () => {
    const turn = { content: [], stop_reason: "max_tokens" as const, model: "claude-scripted" };
    const sim = await startTestSim({ scenario: { turns: [turn, turn] } });
    const events = await rawStreamEvents(sim);
    expect(events.map((event) => event.event)).toEqual(["message_start", "ping", "message_delta", "message_stop"]);

    const message = await sdkClient(sim).messages.stream(baseRequest).finalMessage();
    expect(message).toMatchObject({ content: [], stop_reason: "max_tokens", model: "claude-scripted" });
  });

  it("sets the SSE content type and a request-id header", async () => {
    const sim = await startTestSim({ scenario: { turns: [{ content: [{ type: "text", text: "hi" }] }] } });
    const { response, request_id } = await sdkClient(sim).messages.stream(baseRequest).withResponse();
    expect(response.headers.get("content-type")).toContain("text/event-stream");
    expect(request_id).toMatch(/^req_sim_\d+$/);
  });

  it("hands each piece it writes to onStreamWrite: one event per piece when paced, the pieces making up the body", async () => {
    const pieces: string[] = [];
    const sim = await startTestSim({
      scenario: { turns: [{ content: [{ type: "text", text: "abcdefgh" }], chunkDelayMs: 1 }] },
      textChunkSize: 2,
      onStreamWrite: (chunk) => pieces.push(chunk),
    });
    const response = await fetch(`${sim.url}/v1/messages`, {
      method: "POST",
      headers: { "content-type": "application/json", "x-api-key": "test" },
      body: JSON.stringify({ ...baseRequest, stream: true }),
    });
    const body = await response.text();
    expect(pieces.join("")).toBe(body);
    expect(pieces.length).toBe(body.split("\n\n").filter((frame) => frame.length > 0).length);
    expect(pieces.filter((piece) => piece.includes('"text_delta"')).map((piece) => /"text":"(\w+)"/.exec(piece)?.[1])).toEqual(["ab", "cd", "ef", "gh"]);
  });
});
