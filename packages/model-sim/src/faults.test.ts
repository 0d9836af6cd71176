import { APIConnectionError, APIError, RateLimitError } from "@anthropic-ai/sdk";
import { describe, expect, it } from "vitest";
import type { Scenario } from "./scenario.ts";
import { baseRequest, postJson, rawStreamEvents, sdkClient, startTestSim } from "./test-helpers.ts";

const answer = { type: "text" as const, text: "The real answer, after the fault, in several chunks." };

function scenarioWithFaults(faults: NonNullable<Scenario["turns"][number]["faults"]>): Scenario {
  return { turns: [{ content: [answer], faults }] };
}

describe("fault injection", () => {
  it("returns 529 overloaded with retry-after, then serves the same turn", async () => {
    const sim = await startTestSim({ scenario: scenarioWithFaults([{ kind: "http", status: 529, retryAfter: 3 }]) });
    const client = sdkClient(sim);

    const error = await client.messages
      .stream(baseRequest)
      .finalMessage()
      .catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(APIError);
    const apiError = error as APIError;
    expect(apiError.status).toBe(529);
    expect(apiError.type).toBe("overloaded_error");
    expect(apiError.headers?.get("retry-after")).toBe("3");
    expect(sim.remainingTurns()).toBe(1);

    const message = await client.messages.stream(baseRequest).finalMessage();
    expect(message.content).toEqual([answer]);
    expect(sim.requests.map((request) => [request.turnIndex, request.attempt])).toEqual([
      [0, 1],
      [0, 2],
    ]);
  });

  it("returns 429 as RateLimitError with a custom message", async () => {
    const sim = await startTestSim({
      scenario: scenarioWithFaults([{ kind: "http", status: 429, retryAfter: 1, message: "slow down" }]),
    });
    const error = await sdkClient(sim)
      .messages.create(baseRequest)
      .catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(RateLimitError);
    expect((error as RateLimitError).type).toBe("rate_limit_error");
    expect((error as RateLimitError).headers.get("retry-after")).toBe("1");
    expect(String(error)).toContain("slow down");
  });

  it("lets the SDK's own retry honour retry-after and consume faults in order", async () => {
    const sim = await startTestSim({
      scenario: scenarioWithFaults([
        { kind: "http", status: 529, retryAfter: 0.05 },
        { kind: "http", status: 500, retryAfter: 0.05 },
      ]),
    });
    const message = await sdkClient(sim, { maxRetries: 2 }).messages.stream(baseRequest).finalMessage();
    expect(message.content).toEqual([answer]);
    expect(sim.requests.map((request) => request.attempt)).toEqual([1, 2, 3]);
    expect(sim.requests[1]?.headers["x-stainless-retry-count"]).toBe("1");
  });

  it("emits an error event mid-stream, which the SDK raises, and keeps the turn", async () => {
    const sim = await startTestSim({
      scenario: scenarioWithFaults([{ kind: "stream-error", afterEvents: 4, errorType: "overloaded_error" }]),
    });
    const events = await rawStreamEvents(sim);
    expect(events).toHaveLength(5);
    expect(events[4]).toEqual({
      event: "error",
      data: { type: "error", error: { type: "overloaded_error", message: "Overloaded" } },
    });

    sim.setScenario(scenarioWithFaults([{ kind: "stream-error", afterEvents: 3, message: "boom" }]));
    const stream = sdkClient(sim).messages.stream(baseRequest);
    const error = await stream.finalMessage().catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(APIError);
    expect(String(error)).toContain("boom");
    expect(sim.remainingTurns()).toBe(1);
    expect((await sdkClient(sim).messages.stream(baseRequest).finalMessage()).content).toEqual([answer]);
  });

  it("drops the connection after N events", async () => {
    const sim = await startTestSim({ scenario: scenarioWithFaults([{ kind: "disconnect", afterEvents: 5 }]) });
    const stream = sdkClient(sim).messages.stream(baseRequest);
    const seen: string[] = [];
    stream.on("streamEvent", (event) => seen.push(event.type));
    const error = await stream.finalMessage().catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(Error);
    // ping is not surfaced by the SDK, so 5 events on the wire are 4 stream events.
    expect(seen).toEqual(["message_start", "content_block_start", "content_block_delta", "content_block_delta"]);
    expect(sim.remainingTurns()).toBe(1);
    expect((await sdkClient(sim).messages.stream(baseRequest).finalMessage()).content).toEqual([answer]);
  });

  it("stalls mid-stream for the scripted time and then completes, consuming the turn", async () => {
    const sim = await startTestSim({ scenario: scenarioWithFaults([{ kind: "stall", afterEvents: 3, ms: 300 }]) });
    const stream = sdkClient(sim).messages.stream(baseRequest);
    const arrivals: number[] = [];
    stream.on("streamEvent", () => arrivals.push(performance.now()));
    const message = await stream.finalMessage();
    expect(message.content).toEqual([answer]);
    const gaps = arrivals.slice(1).map((time, index) => time - (arrivals[index] ?? time));
    expect(Math.max(...gaps)).toBeGreaterThanOrEqual(250);
    expect(sim.remainingTurns()).toBe(0);
  });

  it("maps stream faults onto non-streaming requests", async () => {
    const sim = await startTestSim({
      scenario: scenarioWithFaults([
        { kind: "stream-error", afterEvents: 2, errorType: "overloaded_error" },
        { kind: "disconnect", afterEvents: 0 },
      ]),
    });
    const client = sdkClient(sim);
    const overloaded = await client.messages.create(baseRequest).catch((caught: unknown) => caught);
    expect((overloaded as APIError).status).toBe(529);
    const dropped = await client.messages.create(baseRequest).catch((caught: unknown) => caught);
    expect(dropped).toBeInstanceOf(APIConnectionError);
    expect((await client.messages.create(baseRequest)).content).toEqual([answer]);
  });

  it("applies a per-turn chunk delay", async () => {
    const sim = await startTestSim({ scenario: { turns: [{ content: [answer], chunkDelayMs: 20 }] } });
    const started = performance.now();
    const response = await postJson(sim, "/v1/messages", { ...baseRequest, stream: true });
    await response.text();
    // 9 events with 8 pauses between them.
    expect(performance.now() - started).toBeGreaterThanOrEqual(8 * 20 - 5);
  });
});
