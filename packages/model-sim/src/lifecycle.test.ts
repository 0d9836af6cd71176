import { describe, expect, it } from "vitest";
import { startModelSim } from "./model-sim.ts";
import { baseRequest, postJson, sdkClient } from "./test-helpers.ts";

const longText = { type: "text" as const, text: "word ".repeat(400) };

describe("close()", () => {
  it("ends a stream stalled mid-way instead of waiting for it", async () => {
    const sim = await startModelSim({
      scenario: { turns: [{ content: [longText], faults: [{ kind: "stall", afterEvents: 3, ms: 60_000 }] }] },
    });
    const stream = sdkClient(sim).messages.stream(baseRequest);
    const firstEvent = new Promise<void>((resolve) => stream.once("streamEvent", () => resolve()));
    const outcome = stream.finalMessage().then(
      () => "completed",
      () => "failed",
    );
    await firstEvent;

    const started = performance.now();
    await sim.close();
    expect(performance.now() - started).toBeLessThan(1000);
    expect(await outcome).toBe("failed");
  });

  it("ends a slowly streaming response and idle keep-alive connections", async () => {
    const sim = await startModelSim({ scenario: { turns: [{ content: [longText] }, { content: [longText] }] } });
    await sdkClient(sim).messages.create(baseRequest); // leaves an idle keep-alive socket behind
    sim.setScenario({ turns: [{ content: [longText], chunkDelayMs: 1000 }] });
    const response = await postJson(sim, "/v1/messages", { ...baseRequest, stream: true });
    const body = response.text().catch((error: unknown) => error);

    const started = performance.now();
    await Promise.all([sim.close(), sim.close()]);
    expect(performance.now() - started).toBeLessThan(1000);
    expect(await body).toBeInstanceOf(Error);
    await expect(fetch(`${sim.url}/_sim/requests`)).rejects.toThrow();
  });
});

describe("throughput", () => {
  it("streams 20,000 text deltas without a timer per chunk", async () => {
    const deltas = 20_000;
    const sim = await startModelSim({
      scenario: { turns: [{ content: [{ type: "text", text: "abcdefghijklmnop".repeat(deltas) }] }] },
    });
    try {
      const started = performance.now();
      const response = await postJson(sim, "/v1/messages", { ...baseRequest, stream: true });
      const text = await response.text();
      const elapsed = performance.now() - started;
      expect(text.match(/"type":"text_delta"/g)?.length).toBe(deltas);
      expect(elapsed).toBeLessThan(3000);
    } finally {
      await sim.close();
    }
  });
});

describe("clients that go away", () => {
  it("keeps serving after a client aborts mid-stream, with and without chunk delays", async () => {
    const huge = { type: "text" as const, text: "x".repeat(2_000_000) };
    const sim = await startModelSim({
      scenario: {
        turns: [
          { content: [huge] },
          { content: [longText], chunkDelayMs: 5 },
          { content: [longText], faults: [{ kind: "stall", afterEvents: 2, ms: 100 }] },
          { content: [{ type: "text", text: "still alive" }] },
        ],
      },
    });
    try {
      const client = sdkClient(sim);
      for (let turn = 0; turn < 3; turn += 1) {
        const stream = client.messages.stream(baseRequest);
        await new Promise<void>((resolve) => stream.once("streamEvent", () => resolve()));
        stream.abort();
        await stream.done().catch(() => undefined);
      }
      // Give the server time to hit its next write/timer against the closed sockets.
      await new Promise((resolve) => setTimeout(resolve, 150));
      const message = await client.messages.create(baseRequest);
      expect(message.content).toEqual([{ type: "text", text: "still alive" }]);
    } finally {
      await sim.close();
    }
  });
});
